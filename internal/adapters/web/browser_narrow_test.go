package web_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserPagesFitA360PxScreen: at a 360 px wide viewport (a small phone) the settings page
// and the import preview scroll sideways no more than the page itself: the document's
// scrollWidth is the viewport's. Wide content (the preview's table) scrolls inside its own box.
func TestBrowserPagesFitA360PxScreen(t *testing.T) {
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
	// A webhook token puts the tokens' table on the settings page.
	ann.open("/settings")
	ann.fill("#label", "living room")
	ann.submit(`form[action="/settings/webhooks"] button[type=submit]`, "copy it now")
	file := filepath.Join(t.TempDir(), "diary.csv")

	if err := os.WriteFile(file, []byte(letterboxdDiary), 0o644); err != nil {
		t.Fatal(err)
	}
	ann.open("/settings")
	ann.do(chromedp.SetUploadFiles(chromedp.CSS("#import-file"), []string{file}))
	ann.do(chromedp.Click(chromedp.CSS(`form[action="/settings/import"] button[type=submit]`)))
	ann.waitText("main", "2 ready, 0 duplicates, 1 invalid")
	preview, err := chromedp.Run(ann.ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}

	ann.do(chromedp.EmulateViewport(360, 800))
	for name, path := range map[string]string{"settings": "/settings", "import preview": preview[len(b.srv.URL):], "diary": "/diary",
		"log": "/log"} {
		ann.open(path)
		ann.do(chromedp.WaitReady(chromedp.CSS("main")))
		width, err := chromedp.Run(ann.ctx, chromedp.EvaluateAsDevTools[int](`document.documentElement.scrollWidth`))
		if err != nil {
			t.Fatal(err)
		}
		if width > 360 {
			t.Errorf("%s is %d px wide at a 360 px viewport: it scrolls sideways", name, width)
		}
	}
}
