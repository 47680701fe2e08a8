package web_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// germanDiary is a German spreadsheet's export: semicolons, dd.mm.yyyy dates and 1–10 ratings.
const germanDiary = "Titel;Jahr;Note;Gesehen\n" +
	"Heat;1995;8;05.01.2024\n" +
	"Ran;1985;10;31.12.2023\n" +
	"Alien;1979;7;13.02.2024\n"

// TestBrowserImportSetsTheDateFormatAndRatingScale: the mapping form, with JavaScript off, sets
// what the API's mapping can (issue 36, 2): a date format that reads 05.01.2024 as 5 January
// and a 1–10 rating scale, so a German file imports from the browser; the form shows them
// again once saved.
func TestBrowserImportSetsTheDateFormatAndRatingScale(t *testing.T) {
	chromiumPath(t)
	b := setup(t)
	dir := os.Getenv("WEB_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	ann := person(t, newBrowser(t), b.srv.URL, dir)
	ann.open("/register")
	ann.fill("#email", "ann@example.com", "#username", "ann", "#password", "correct horse", "#password2", "correct horse")
	ann.submit("form.card button[type=submit]", "Account created")

	file := filepath.Join(t.TempDir(), "filme.csv")
	if err := os.WriteFile(file, []byte(germanDiary), 0o644); err != nil {
		t.Fatal(err)
	}
	ann.open("/settings")
	ann.do(chromedp.SetUploadFiles(chromedp.CSS("#import-file"), []string{file}))
	ann.do(chromedp.Click(chromedp.CSS(`form[action="/settings/import"] button[type=submit]`)))
	ann.waitText("main", "3 rows")
	ann.fill("#field-0", "title", "#field-1", "release_year", "#field-2", "rating", "#field-3", "watched_at",
		"#rating-scale", "Ten points", "#date-format", "%d.%m.%Y")
	ann.submit(`form[action$="/mapping"] button[type=submit]`, "Columns saved")
	ann.waitText("main", "3 ready, 0 duplicates, 0 invalid")
	if got := ann.attr("#date-format", "value"); got != "%d.%m.%Y" {
		t.Errorf("the saved date format shows as %q", got)
	}
	if got := ann.attr(`#rating-scale option[value="0.5"]`, "selected"); got != "" && got != "selected" && got != "true" {
		t.Errorf("the saved scale: selected=%q", got)
	}
	ann.shot("import-mapping", 1100)
	ann.shot("import-mapping-360", 360)
	ann.submit(`form[action$="/confirm"] button[type=submit]`, "Import done")
	ann.waitText("main", "Imported 3, skipped 0 duplicates, 0 failed")

	for title, want := range map[string]string{"Heat": "4 2024-01-05", "Ran": "5 2023-12-31", "Alien": "4 2024-02-13"} {
		got := b.String(`SELECT r.rating || ' ' || substr(r.watched_at, 1, 10) FROM reviews r JOIN movies m ON m.id = r.movie_id WHERE m.title = ?`, title)
		if got != want {
			t.Errorf("%s: %q, want %q", title, got, want)
		}
	}
}
