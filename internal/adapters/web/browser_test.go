package web_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"moviesdiary/internal/testtool"
)

// chromiumPath is the browser the flows run in: $CHROMIUM, else Debian's chromium on PATH.
func chromiumPath(t *testing.T) string {
	t.Helper()
	return testtool.Require(t, testtool.Chromium)
}

// tab is one browser context (its own cookies: one person) with JavaScript turned off.
type tab struct {
	t   *testing.T
	ctx context.Context
	srv string
	dir string // dir receives the screenshots
}

func newBrowser(t *testing.T) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)), chromedp.UserDataDir(t.TempDir()),
		chromedp.Headless, chromedp.NoSandbox, chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true), chromedp.WindowSize(1100, 900),
	}
	alloc, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	t.Cleanup(cancelCtx)
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// person opens a new browser context in the browser, with scripts disabled: every flow must
// work without JavaScript.
func person(t *testing.T, browser context.Context, srv, dir string) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	// The first run opens the tab, which lives as long as the context of that run: no deadline.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	tb := &tab{t: t, ctx: ctx, srv: srv, dir: dir}
	tb.do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}))
	return tb
}

// do runs steps with a deadline, failing the test on error.
func (tb *tab) do(steps ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		tb.t.Fatalf("%v\n%s", err, tb.where())
	}
}

// where is the tab's address and main element, for a failure's message.
func (tb *tab) where() string {
	ctx, cancel := context.WithTimeout(tb.ctx, 5*time.Second)
	defer cancel()
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	html, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("main")))
	return "at " + loc + ":\n" + excerpt(html)
}

func (tb *tab) open(path string) { tb.t.Helper(); tb.do(chromedp.Navigate(tb.srv + path)) }

// fill types into the fields, by CSS selector, as a person would: with scripts off there is no
// setting a value directly, so a field's text is added to what it holds, and a select takes
// the option whose label is typed.
func (tb *tab) fill(fields ...string) {
	tb.t.Helper()
	for i := 0; i+1 < len(fields); i += 2 {
		tb.do(chromedp.SendKeys(chromedp.CSS(fields[i]), fields[i+1]))
	}
}

// submit clicks a button and waits for the next page's notice to read want.
func (tb *tab) submit(button, want string) {
	tb.t.Helper()
	tb.do(chromedp.Click(chromedp.CSS(button)))
	tb.waitText(".notice", want)
}

// waitText waits for the element sel to contain want.
func (tb *tab) waitText(sel, want string) {
	tb.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(tb.ctx, 2*time.Second)
		got, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		cancel()
		if err == nil && strings.Contains(got, want) {
			return
		}
		if time.Now().After(deadline) {
			tb.t.Fatalf("%s never read %q (last %q, %v)\n%s", sel, want, got, err, tb.where())
		}
		tb.do(chromedp.WaitReady(chromedp.CSS("body")))
	}
}

// shot saves a full-page screenshot as name.png at the given width.
func (tb *tab) shot(name string, width int64) {
	tb.t.Helper()
	tb.do(chromedp.EmulateViewport(width, 800))
	png, err := chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		tb.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tb.dir, name+".png"), png, 0o644); err != nil {
		tb.t.Fatal(err)
	}
	tb.do(chromedp.EmulateViewport(1100, 900))
}

// dark switches prefers-color-scheme to dark (or back).
func (tb *tab) dark(on bool) {
	tb.t.Helper()
	scheme := "light"
	if on {
		scheme = "dark"
	}
	tb.do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		return err
	}))
}

// TestBrowserFlows runs the main flows in headless Chromium with JavaScript off: register, log
// a review, edit it, the watchlist, follow and accept, the following feed, the wrap-up and
// making it public, delete. It saves a
// screenshot of each main page (desktop and 360 px) in $WEB_SCREENSHOT_DIR, or a temporary
// directory.
func TestBrowserFlows(t *testing.T) {
	path := chromiumPath(t)
	t.Logf("browser: %s", path)
	b := setup(t)
	dir := os.Getenv("WEB_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	browser := newBrowser(t)
	ann := person(t, browser, b.srv.URL, dir)

	// Register: the first account is the instance's admin.
	ann.open("/register")
	ann.fill("#email", "ann@example.com", "#username", "ann", "#password", "correct horse", "#password2", "correct horse")
	ann.submit("form.card button[type=submit]", "Account created")

	// Log a review by title and year.
	ann.open("/log")
	// The date stays today's, as the form fills it in.
	ann.fill("#title", "Heat", "#year", "1995", "#director", "Michael Mann", "#comment", "The diner scene.",
		"#medium", "Cinema")
	ann.do(chromedp.Click(chromedp.CSS(`input[name=rating][value="4"]`)))
	ann.shot("log", 1100)
	ann.submit("form.card button[type=submit]", "Review logged.")
	ann.waitText("main", "The diner scene.")
	ann.waitText("main", "★★★★☆")

	// Edit it from the movie page.
	ann.do(chromedp.Click(chromedp.CSS(`a[href^="/review/"]`)))
	ann.waitText("h1", "Edit review")
	ann.fill("#comment", "Better on the big screen. ") // typed before the old text
	ann.do(chromedp.Click(chromedp.CSS(`input[name=rating][value="5"]`)))
	ann.submit("form.card button[type=submit]", "Review saved.")
	ann.waitText("main", "Better on the big screen.")

	// The watchlist: add from the movie page, then one by title, remove it.
	ann.submit(`form[action="/watchlist/add"] button`, "Added to your watchlist.")
	ann.open("/watchlist")
	ann.fill("#title", "Alien", "#year", "1979")
	ann.submit("form.card button[type=submit]", "Added to your watchlist.")
	ann.waitText("main", "Alien")
	ann.shot("watchlist", 1100)
	ann.submit(`form[action="/watchlist/remove"] button`, "Removed from your watchlist.")

	// Follow and accept: bob asks, ann accepts.
	bob := person(t, browser, b.srv.URL, dir)
	bob.open("/register")
	bob.fill("#email", "bob@example.com", "#username", "bob", "#password", "correct horse", "#password2", "correct horse")
	bob.submit("form.card button[type=submit]", "Account created")
	bob.open("/u/" + b.userID("ann").String())
	bob.submit(`form[action="/follow"] button`, "Follow requested.")
	ann.open("/people")
	ann.waitText("main", "bob")
	ann.shot("people", 1100)
	ann.submit(`form[action="/social/accept"] button`, "Follower accepted.")
	bob.open("/u/" + b.userID("ann").String())
	bob.waitText("main", "Unfollow")
	bob.shot("profile", 1100)
	// bob's following tab now has ann's review, and nobody else's.
	bob.open("/")
	bob.do(chromedp.Click(chromedp.CSS(`nav.tabs a[href="/?tab=following"]`)))
	bob.waitText("h1", "Following")
	bob.waitText("main", "Better on the big screen.")
	bob.shot("following", 1100)

	// The wrap-up: ann (admin) requests hers of this year (the form's default), the worker
	// builds it, she opens it.
	ann.open("/wrapups")
	ann.fill("#user", "ann")
	ann.submit("form.card button[type=submit]", "Wrap-up requested")
	generate(t, b, b.String(`SELECT id FROM wrapups`))
	share := "/u/" + b.userID("ann").String() + "/wrapup/" + time.Now().UTC().Format("2006")
	ann.do(chromedp.Click(chromedp.CSS(`.wrapups a[href="` + share + `"]`)))
	ann.waitText("main", "Ready")
	ann.waitText(".stats", "1")
	ann.shot("wrapup", 1100)
	// Private, it does not exist for bob; ann makes her wrap-ups public in the settings, and
	// bob reads it at the same address.
	bob.open(share)
	bob.waitText("h1", "Not Found")
	ann.open("/settings")
	ann.do(chromedp.Click(chromedp.CSS(`form[action="/settings/wrapups"] input[name=public]`)))
	ann.submit(`form[action="/settings/wrapups"] button`, "Settings saved.")
	ann.shot("settings", 1100)
	bob.open(share)
	bob.waitText("main", "Ready")
	bob.waitText(".stats", "1")
	bob.shot("wrapup-public", 1100)
	bob.shot("wrapup-public-360", 360)
	// ann's page now links it for bob.
	bob.open("/u/" + b.userID("ann").String())
	bob.do(chromedp.Click(chromedp.CSS(`a[href="` + share + `"]`)))
	bob.waitText("h1", "Wrap-up")

	// The home feed and the movie page, desktop and phone.
	ann.open("/")
	ann.waitText("main", "Better on the big screen.")
	ann.shot("home", 1100)
	ann.shot("home-360", 360)
	ann.dark(true)
	ann.shot("home-dark", 1100)
	ann.dark(false)
	ann.open("/diary")
	ann.shot("diary", 1100)
	ann.do(chromedp.Click(chromedp.CSS(`.grid .film-link`)))
	ann.waitText("h1", "Heat")
	ann.shot("movie", 1100)
	ann.shot("movie-360", 360)

	// Delete the review.
	ann.open("/diary")
	ann.do(chromedp.Click(chromedp.CSS(`.film-actions a[href^="/review/"]`)))
	ann.waitText("h1", "Edit review")
	ann.submit("form.danger button", "Review deleted.")
	ann.waitText("main", "No reviews yet")
	t.Logf("screenshots in %s", dir)
}
