package web_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"moviesdiary/internal/domain"
)

// TestBrowserRegistration: in approval mode (the default) a stranger who registers first gets
// an account that waits for an admin; the one-time setup link makes the admin, once.
func TestBrowserRegistration(t *testing.T) {
	chromiumPath(t)
	b := setup(t, options{registration: domain.RegistrationApproval})
	dir := os.Getenv("WEB_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	browser := newBrowser(t)
	ctx := context.Background()

	stranger := person(t, browser, b.srv.URL, dir)
	stranger.open("/register")
	stranger.fill("#email", "eve@example.com", "#username", "eve", "#password", "correct horse", "#password2", "correct horse")
	stranger.submit("form.card button[type=submit]", "An admin must approve it")
	stranger.fill("#email", "eve@example.com", "#password", "correct horse")
	stranger.do(clickSubmit())
	stranger.waitText("main", "waiting for an admin's approval")

	link, err := b.site.API.Auth.SetupLink(ctx, b.srv.URL)
	if err != nil || link == "" {
		t.Fatalf("setup link %q, %v", link, err)
	}
	path := strings.TrimPrefix(link, b.srv.URL)
	ann := person(t, browser, b.srv.URL, dir)
	ann.open(path)
	ann.waitText("main", "You were invited")
	ann.fill("#email", "ann@example.com", "#username", "ann", "#password", "correct horse", "#password2", "correct horse")
	ann.submit("form.card button[type=submit]", "Account created")
	u, err := b.Store.UserByUsername(ctx, "ann")
	if err != nil || u.Role != domain.RoleAdmin {
		t.Fatalf("the setup link's account: %+v, %v", u, err)
	}
	eve, err := b.Store.UserByUsername(ctx, "eve")
	if err != nil || eve.Role != domain.RoleStandard || !eve.Pending {
		t.Fatalf("the stranger's account: %+v, %v", eve, err)
	}
	// The link is spent.
	again := person(t, browser, b.srv.URL, dir)
	again.open(path)
	again.fill("#email", "bob@example.com", "#username", "bob", "#password", "correct horse", "#password2", "correct horse")
	again.do(clickSubmit())
	again.waitText("main", "invalid, used or expired")
}

// clickSubmit clicks the page's main form's button.
func clickSubmit() chromedp.Action[chromedp.Void] {
	return chromedp.Click(chromedp.CSS("form.card button[type=submit]"))
}
