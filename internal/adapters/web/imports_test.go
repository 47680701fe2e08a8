package web_test

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var importPath = regexp.MustCompile(`^/import/[0-9a-f-]{36}$`)

// upload posts the import form with a file.
func (br *browser) upload(name, content, csrf string) page {
	br.b.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("csrf", csrf)
	if name != "" {
		fw, _ := mw.CreateFormFile("file", name)
		_, _ = fw.Write([]byte(content))
	}
	_ = mw.Close()
	req, _ := http.NewRequest(http.MethodPost, br.b.srv.URL+"/settings/import", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return br.do(req)
}

const letterboxdDiary = "Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date\n" +
	"2024-01-02,Heat,1995,https://boxd.it/a,4,,,2024-01-01\n" +
	"2024-01-03,<script>alert(1)</script>,1999,https://boxd.it/b,3,,,2024-01-02\n" +
	"2024-01-04,Alien,1979,https://boxd.it/c,4,,,not a date\n"

func TestImportAKnownExport(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	contains(t, mustStatus(t, ann.get("/settings"), http.StatusOK), `action="/settings/import"`, `<label for="import-file">`,
		`href="/settings/export?format=csv"`, `href="/settings/export?format=json"`)

	mustStatus(t, ann.upload("diary.csv", letterboxdDiary, "forged"), http.StatusForbidden)
	contains(t, mustStatus(t, ann.upload("", "", ann.csrf()), http.StatusBadRequest), "Choose a file")
	p := mustStatus(t, ann.upload("diary.csv", letterboxdDiary, ann.csrf()), http.StatusSeeOther)
	if !importPath.MatchString(p.location()) {
		t.Fatalf("Location %q", p.location())
	}
	sess := p.location()
	p = mustStatus(t, ann.get(sess), http.StatusOK)
	contains(t, p, "3 rows", "letterboxd_diary", "<code>Letterboxd URI</code>", "2 ready, 0 duplicates, 1 invalid",
		"&lt;script&gt;alert(1)&lt;/script&gt;", "Import 2 rows", `name="federate"`,
		// The invalid row shows its own values beside its errors.
		`<td>invalid</td><td>Alien</td><td>1979</td><td>4</td><td>not a date</td><td class="errors">watched_at`)
	lacks(t, p, "<script>alert(1)</script>")
	mustStatus(t, b.register("bob").get(sess), http.StatusNotFound)

	mustStatus(t, ann.post(sess+"/confirm", url.Values{"csrf": {"forged"}}), http.StatusForbidden)
	p = mustStatus(t, ann.post(sess+"/confirm", nil), http.StatusSeeOther)
	contains(t, mustStatus(t, ann.get(p.location()), http.StatusOK), "Import done", "Imported 2, skipped 0 duplicates, 0 failed")
	if n := b.Int(`SELECT COUNT(*) FROM reviews`); n != 2 {
		t.Errorf("%d reviews, want 2", n)
	}
	// The rows are now duplicates: nothing is left to import.
	contains(t, mustStatus(t, ann.post(sess+"/confirm", nil), http.StatusBadRequest), "No row is ready")

	csv := mustStatus(t, ann.get("/settings/export"), http.StatusOK)
	if ct := csv.header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if cd := csv.header.Get("Content-Disposition"); !strings.Contains(cd, "attachment") {
		t.Errorf("Content-Disposition %q", cd)
	}
	if !strings.HasPrefix(csv.body, "title,year,director,rating,comment,watched_at,external_metadata_id,rating_precise,rewatch,watch_medium,watched_time\n") ||
		!strings.Contains(csv.body, "Heat,1995,") || !strings.Contains(csv.body, "<script>alert(1)</script>,1999,") {
		t.Errorf("export:\n%s", csv.body)
	}
	js := mustStatus(t, ann.get("/settings/export?format=json"), http.StatusOK)
	var rows []map[string]any
	if err := json.Unmarshal([]byte(js.body), &rows); err != nil || len(rows) != 2 || rows[0]["title"] != "Heat" ||
		rows[0]["watched_at"] != "2024-01-01" || rows[1]["title"] != "<script>alert(1)</script>" {
		t.Errorf("JSON export (%v):\n%s", err, js.body)
	}
	if ct, cd := js.header.Get("Content-Type"), js.header.Get("Content-Disposition"); ct != "application/json" ||
		!strings.Contains(cd, `filename="diary.json"`) {
		t.Errorf("JSON export headers %q, %q", ct, cd)
	}
	contains(t, mustStatus(t, ann.get("/settings/export?format=xml"), http.StatusBadRequest), "choose CSV, JSON or Letterboxd")
	if e := mustStatus(t, b.register("eve").get("/settings/export?format=json"), http.StatusOK); strings.TrimSpace(e.body) != "[]" {
		t.Errorf("an empty diary's JSON export: %q", e.body)
	}
	if p := mustStatus(t, b.browser().get("/settings/export"), http.StatusSeeOther); !strings.HasPrefix(p.location(), "/login") {
		t.Errorf("a visitor's export: Location %q", p.location())
	}
}

func TestImportMapsAFileOfItsOwn(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	p := mustStatus(t, ann.upload("mine.csv", "film,score,seen,made\nHeat,5,2024-02-01,1995\n<b>Ronin</b>,4,2024-02-02,\n", ann.csrf()), http.StatusSeeOther)
	sess := p.location()
	p = mustStatus(t, ann.get(sess), http.StatusOK)
	contains(t, p, "2 rows", `<label for="field-0">film</label>`, `<option value="title">`)
	lacks(t, p, "recognised", "Import 1 row")
	mustStatus(t, ann.post(sess+"/mapping", url.Values{"field-0": {"title"}, "csrf": {"forged"}}), http.StatusForbidden)
	// A bad scale or date format is the form's 400, naming it.
	for _, c := range []struct{ scale, format, says string }{
		{"ten", "", "rating scale &#34;ten&#34; is not a number"}, {"0", "", "rating_scale must be a positive number"},
		{"1", "%Q", "%Q is not supported"},
	} {
		contains(t, mustStatus(t, ann.post(sess+"/mapping", url.Values{"field-0": {"title"}, "field-1": {"rating"}, "field-2": {"watched_at"},
			"rating_scale": {c.scale}, "date_format": {c.format}}), http.StatusBadRequest), c.says)
	}
	p = mustStatus(t, ann.post(sess+"/mapping", url.Values{"field-0": {"title"}, "field-1": {"rating"}, "field-2": {"watched_at"}, "field-3": {"release_year"}}),
		http.StatusSeeOther)
	p = mustStatus(t, ann.get(p.location()), http.StatusOK)
	contains(t, p, "Columns saved", `value="title" selected`, "1 ready", "1 invalid", "Import 1 row",
		"Manual release year required")
	mustStatus(t, ann.post(sess+"/confirm", nil), http.StatusSeeOther)
	if n := b.Int(`SELECT COUNT(*) FROM reviews`); n != 1 {
		t.Errorf("%d reviews, want 1", n)
	}
}

// TestHalfStarsAndRewatchShow: Letterboxd's 4.5 stars and its Rewatch column, imported, show
// on the movie page as ★★★★½ and a rewatch tag, apart from a 5-star first viewing.
func TestHalfStarsAndRewatchShow(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	diary := "Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date\n" +
		"2024-01-02,Heat,1995,https://boxd.it/a,5,,,2024-01-01\n" +
		"2024-02-02,Heat,1995,https://boxd.it/a,4.5,Yes,,2024-02-01\n"
	sess := mustStatus(t, ann.upload("diary.csv", diary, ann.csrf()), http.StatusSeeOther).location()
	contains(t, mustStatus(t, ann.get(sess), http.StatusOK), "2 ready", `4.5 <span class="tag">rewatch</span>`)
	mustStatus(t, ann.post(sess+"/confirm", nil), http.StatusSeeOther)
	p := mustStatus(t, ann.get("/movie/"+b.String(`SELECT id FROM movies WHERE title = 'Heat'`)), http.StatusOK)
	contains(t, p, `aria-label="5 out of 5">★★★★★</span> <a`,
		`aria-label="4.5 out of 5">★★★★½</span> <span class="tag">rewatch</span>`)
}

// TestReimportOfDuplicatesOffersNothing: a second upload of a file already imported says there
// is nothing to import instead of offering "Import 0 rows".
func TestReimportOfDuplicatesOffersNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	file := "Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date\n2024-01-02,Heat,1995,https://boxd.it/a,4,,,2024-01-01\n"
	sess := mustStatus(t, ann.upload("diary.csv", file, ann.csrf()), http.StatusSeeOther).location()
	contains(t, mustStatus(t, ann.get(sess), http.StatusOK), "Import 1 row")
	mustStatus(t, ann.post(sess+"/confirm", nil), http.StatusSeeOther)
	again := mustStatus(t, ann.upload("diary.csv", file, ann.csrf()), http.StatusSeeOther).location()
	p := mustStatus(t, ann.get(again), http.StatusOK)
	contains(t, p, "0 ready, 1 duplicate, 0 invalid", "Nothing to import: every row is already in your diary.")
	lacks(t, p, "Import 0 rows", again+"/confirm")
}
