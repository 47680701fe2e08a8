package httpapi_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"moviesdiary/internal/usecase/archive"
)

// uploadArchive posts data to POST /api/v1/account/archive as the multipart field "file".
func (b *bundle) uploadArchive(a account, data []byte) response {
	b.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", "archive.zip")
	if err != nil {
		b.t.Fatal(err)
	}
	_, _ = fw.Write(data)
	_ = mw.Close()
	return b.do(req{method: "POST", path: "/api/v1/account/archive", token: a.token, body: body.Bytes(),
		header: map[string]string{"Content-Type": mw.FormDataContentType()}})
}

// zipFile is one entry of a hand-made zip: its name and content, or raw deflated bytes with the
// sizes its header declares.
type zipFile struct {
	name    string
	content string
	raw     *zip.FileHeader
	rawData []byte
}

func makeZip(t *testing.T, files ...zipFile) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, f := range files {
		var w io.Writer
		var err error
		if f.raw != nil {
			w, err = z.CreateRaw(f.raw)
			if err == nil {
				_, err = w.Write(f.rawData)
			}
		} else if w, err = z.Create(f.name); err == nil {
			_, err = io.WriteString(w, f.content)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func deflated(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write(data)
	_ = w.Close()
	return buf.Bytes()
}

// TestAccountArchiveRefusesBadInput: what is not an account archive of a version this server
// reads, or tries to escape its directory, or inflates beyond the limits, is a 400 with a clear
// message, and the account is left as it was.
func TestAccountArchiveRefusesBadInput(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob := b.register("alice"), b.register("bob")
	b.logReview(alice, "Heat", 4, "2024-01-02")
	b.must(200, req{method: "POST", path: "/api/v1/goals", token: alice.token, body: map[string]any{"year": 2024, "target_count": 10}})
	good := b.must(200, req{method: "GET", path: "/api/v1/account/archive", token: alice.token})
	if ct := good.header.Get("Content-Type"); ct != "application/zip" || !strings.HasPrefix(good.header.Get("Content-Disposition"), "attachment; ") {
		t.Fatalf("archive headers = %v", good.header)
	}
	z, err := zip.NewReader(bytes.NewReader(good.body), int64(len(good.body)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range z.File {
		rc, _ := f.Open()
		data, _ := io.ReadAll(rc)
		rc.Close()
		files[f.Name] = string(data)
	}
	manifest := files["manifest.json"]
	if !strings.Contains(manifest, `"format": "moviesdiary-account-archive"`) || !strings.Contains(manifest, `"version": 1`) {
		t.Fatalf("manifest = %s", manifest)
	}
	withVersion := func(v int) string {
		var m map[string]any
		if err := json.Unmarshal([]byte(manifest), &m); err != nil {
			t.Fatal(err)
		}
		m["version"] = v
		out, _ := json.Marshal(m)
		return string(out)
	}
	bomb := bytes.Repeat([]byte{' '}, 4<<20)
	cases := []struct {
		name, want string
		data       []byte
	}{
		{"not a zip", "not a zip archive", []byte("\x89PNG\r\n\x1a\n not a zip at all")},
		{"empty", "not a zip archive", nil},
		{"no manifest", "has no manifest.json", makeZip(t, zipFile{name: "diary.csv", content: files["diary.csv"]})},
		{"unknown version", "unknown archive version 2", makeZip(t, zipFile{name: "manifest.json", content: withVersion(2)})},
		{"another format", "names format", makeZip(t, zipFile{name: "manifest.json", content: `{"format":"other","version":1}`})},
		{"path traversal", `unsafe file name "../manifest.json"`, makeZip(t, zipFile{name: "../manifest.json", content: manifest})},
		{"absolute path", `unsafe file name "/etc/passwd"`, makeZip(t, zipFile{name: "manifest.json", content: manifest}, zipFile{name: "/etc/passwd", content: "x"})},
		{"nested traversal", "unsafe file name", makeZip(t, zipFile{name: "manifest.json", content: manifest}, zipFile{name: "a/../../goals.json", content: "[]"})},
		{"backslash", "unsafe file name", makeZip(t, zipFile{name: `..\goals.json`, content: "[]"})},
		{"unexpected file", `unexpected file "notes.txt"`, makeZip(t, zipFile{name: "manifest.json", content: manifest}, zipFile{name: "notes.txt", content: "hi"})},
		{"twice", `holds "goals.json" twice`, makeZip(t, zipFile{name: "manifest.json", content: manifest},
			zipFile{name: "goals.json", content: "[]"}, zipFile{name: "goals.json", content: "[]"})},
		{"too many files", "at most", makeZip(t, func() []zipFile {
			var fs []zipFile
			for i := range len(archive.Files) + 1 {
				fs = append(fs, zipFile{name: fmt.Sprintf("f%d.json", i), content: "{}"})
			}
			return fs
		}()...)},
		{"zip bomb (declared)", "uncompress to more than", makeZip(t, zipFile{name: "manifest.json", content: manifest},
			zipFile{raw: &zip.FileHeader{Name: "diary.csv", Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(bomb),
				UncompressedSize64: archive.MaxUncompressedBytes + 1}, rawData: deflated(t, bomb)})},
		{"zip bomb (lying header)", "cannot read profile.json", makeZip(t, zipFile{name: "manifest.json", content: manifest},
			zipFile{raw: &zip.FileHeader{Name: "profile.json", Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(bomb),
				CompressedSize64: uint64(len(deflated(t, bomb))), UncompressedSize64: 100}, rawData: deflated(t, bomb)})},
		{"bad JSON", "goals.json is not valid", makeZip(t, zipFile{name: "manifest.json", content: manifest}, zipFile{name: "goals.json", content: "{"})},
		{"bad goal", "goals.json: goal 1066", makeZip(t, zipFile{name: "manifest.json", content: manifest},
			zipFile{name: "goals.json", content: `[{"year":2024,"target_count":3},{"year":1066,"target_count":3}]`})},
		{"not the diary export", "does not start with the diary export's header", makeZip(t, zipFile{name: "manifest.json", content: manifest},
			zipFile{name: "goals.json", content: `[{"year":2024,"target_count":3}]`}, zipFile{name: "diary.csv", content: "Name,Year\nHeat,1995\n"})},
	}
	for _, c := range cases {
		resp := b.uploadArchive(bob, c.data)
		if resp.status != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", c.name, resp.status, resp.body)
			continue
		}
		if msg := resp.errorMessage(t); !strings.Contains(msg, c.want) {
			t.Errorf("%s: %q, want it to say %q", c.name, msg, c.want)
		}
	}
	if got := b.do(req{method: "POST", path: "/api/v1/account/archive", token: bob.token, body: map[string]any{}}); got.status != http.StatusUnsupportedMediaType {
		t.Errorf("a JSON body = %d %s, want 415", got.status, got.body)
	}
	b.must(401, req{method: "GET", path: "/api/v1/account/archive"})

	// Nothing of it reached bob's account.
	if got := string(b.must(200, req{method: "GET", path: "/api/v1/diary/export", token: bob.token}).body); got != exportHeader {
		t.Errorf("bob's diary after the refused archives:\n%s", got)
	}
	if got := string(b.must(200, req{method: "GET", path: "/api/v1/goals", token: bob.token}).body); !strings.Contains(got, `"goals":[]`) {
		t.Errorf("bob's goals after the refused archives: %s", got)
	}
	var count int
	if err := b.db.QueryRow(`SELECT count(*) FROM import_sessions WHERE user_id = ?`, bob.id.String()).Scan(&count); err != nil || count != 0 {
		t.Errorf("bob has %d import sessions (%v): a refused archive started an import", count, err)
	}

	// Follows the account cannot make are reported, not fatal: a local handle with no such user
	// here, and a remote actor on a server without federation.
	var skipped archive.Report
	b.uploadArchive(bob, makeZip(t, zipFile{name: "manifest.json", content: manifest}, zipFile{name: "following.json", content: `[
		{"handle":"nobody@diary.test","actor_url":""},
		{"handle":"carol@remote.example","actor_url":"https://remote.example/users/carol"}]`})).json(t, &skipped)
	if f := skipped.Following; f.Added != 0 || len(f.Skipped) != 2 || !strings.Contains(f.Skipped[0].Error, "nobody") ||
		!strings.Contains(f.Skipped[1].Error, "federation") {
		t.Errorf("following of unreachable accounts = %+v", f)
	}

	// An empty account's archive goes in and adds nothing.
	carol := b.register("carol")
	var empty archive.Report
	b.uploadArchive(bob, b.must(200, req{method: "GET", path: "/api/v1/account/archive", token: carol.token}).body).json(t, &empty)
	if empty.Diary.Rows != 0 || empty.Diary.Imported != 0 || empty.Goals.Added != 0 || empty.Watchlist.Added != 0 {
		t.Errorf("an empty account's archive = %+v", empty)
	}

	// The archive itself goes in.
	var rep archive.Report
	b.uploadArchive(bob, good.body).json(t, &rep)
	if rep.Diary.Imported != 1 || rep.Goals.Added != 1 {
		t.Errorf("alice's archive into bob's account = %+v", rep)
	}
}
