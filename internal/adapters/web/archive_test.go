package web_test

import (
	"archive/zip"
	"bytes"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
)

// uploadArchive posts the account archive form with a file.
func (br *browser) uploadArchive(data []byte, csrf string) page {
	br.b.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("csrf", csrf)
	if data != nil {
		fw, _ := mw.CreateFormFile("file", "archive.zip")
		_, _ = fw.Write(data)
	}
	_ = mw.Close()
	req, _ := http.NewRequest(http.MethodPost, br.b.srv.URL+"/settings/archive", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return br.do(req)
}

// TestAccountArchivePages: the settings page links the account archive and the Letterboxd
// export and has the archive's import form (plain HTML, no script); the download is the zip; the
// form imports it into another account and shows what it did, and refuses what is not an
// archive on the page with the reason.
func TestAccountArchivePages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann, bob := b.register("ann"), b.register("bob")
	contains(t, mustStatus(t, ann.get("/settings"), http.StatusOK), `href="/settings/archive"`, `action="/settings/archive"`,
		`enctype="multipart/form-data"`, `<label for="archive-file">`, `href="/settings/export?format=letterboxd"`)
	sess := mustStatus(t, ann.upload("diary.csv", letterboxdDiary, ann.csrf()), http.StatusSeeOther).location()
	mustStatus(t, ann.post(sess+"/confirm", nil), http.StatusSeeOther)
	p := mustStatus(t, ann.get("/settings/export?format=letterboxd"), http.StatusOK)
	if !strings.HasPrefix(p.body, "Title,Year,Directors,imdbID,tmdbID,WatchedDate,Rating,Rewatch,Review\n") {
		t.Errorf("the Letterboxd download:\n%s", p.body)
	}

	dl := mustStatus(t, ann.get("/settings/archive"), http.StatusOK)
	if dl.header.Get("Content-Type") != "application/zip" || !strings.Contains(dl.header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("archive headers = %v", dl.header)
	}
	if _, err := zip.NewReader(strings.NewReader(dl.body), int64(len(dl.body))); err != nil {
		t.Fatalf("the download is not a zip: %v", err)
	}

	mustStatus(t, bob.uploadArchive([]byte(dl.body), "forged"), http.StatusForbidden)
	contains(t, mustStatus(t, bob.uploadArchive([]byte("not a zip"), bob.csrf()), http.StatusBadRequest), "not a zip archive")
	contains(t, mustStatus(t, bob.uploadArchive(nil, bob.csrf()), http.StatusBadRequest), "Choose an account archive")
	contains(t, mustStatus(t, bob.uploadArchive([]byte(dl.body), bob.csrf()), http.StatusOK), `id="archive-report"`,
		"Archive imported. Diary: 2 added, 0 already here", "followers cannot be moved")
}
