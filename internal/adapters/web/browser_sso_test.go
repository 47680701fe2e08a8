package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"moviesdiary/internal/usecase/auth"
)

// TestBrowserSignOn: in Chromium with JavaScript off, a person follows the log-in page's "Sign in
// with TestID" link, signs in on the real provider's own form, and lands back signed in: the
// session cookies (SameSite=Strict) come with the page after the provider's cross-site redirect.
func TestBrowserSignOn(t *testing.T) {
	chromiumPath(t)
	b := setupSSO(t, ssoOptions{SSOConfig: auth.SSOConfig{AutoRegister: true}})
	browser := newBrowser(t)
	p := person(t, browser, b.srv.URL, t.TempDir())

	p.open("/login?next=/diary")
	p.do(chromedp.Click(chromedp.CSS(`a[href^="/auth/oidc/login"]`)))
	// The provider's login form, on its own origin (localhost, not our 127.0.0.1: another site).
	p.do(chromedp.WaitVisible(chromedp.CSS("#username")))
	if loc := location(p); !strings.HasPrefix(loc, b.op.Issuer+"login/username") {
		t.Fatalf("the link led to %s, not the provider's login form", loc)
	}
	p.fill("#username", opAlice.Username, "#password", opAlice.Password)
	p.do(chromedp.Click(chromedp.CSS(`button[type=submit]`)))

	// Back here: the callback's page moves on to /diary by itself, where the session holds.
	deadline := time.Now().Add(20 * time.Second)
	for location(p) != b.srv.URL+"/diary" {
		if time.Now().After(deadline) {
			t.Fatalf("never reached /diary\n%s", p.where())
		}
		p.do(chromedp.WaitReady(chromedp.CSS("body")))
	}
	p.waitText("header nav", "alice")
	u, err := b.identityUser(opAlice)
	if err != nil || u.Username != "alice" {
		t.Fatalf("the signed-in account %+v, %v", u, err)
	}
	// And the next page too (the cookies are the browser's now).
	p.open("/account")
	p.waitText("main", "Signed in as alice")
}

// location is the tab's address.
func location(p *tab) string {
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	return loc
}
