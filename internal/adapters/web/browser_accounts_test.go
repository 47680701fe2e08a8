package web_test

import (
	"context"
	"net/url"
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

	// The admin approves the stranger on the accounts page, who can then log in, and makes an
	// invite link that registers someone at once; the page is the admins' only.
	ann.open("/admin/accounts")
	ann.waitText("main", "eve@example.com")
	ann.do(chromedp.Click(chromedp.CSS(`button[name=approve]`)))
	ann.waitText(".notice", "Account approved")
	ann.waitText("main", "Nobody is waiting")
	stranger.open("/login")
	stranger.fill("#email", "eve@example.com", "#password", "correct horse")
	stranger.do(clickSubmit())
	stranger.waitText("h1", "Latest reviews")
	stranger.open("/admin/accounts")
	stranger.waitText("main", "Only an admin manages accounts")
	ann.do(chromedp.Click(chromedp.CSS(`button[name=invite]`)))
	invite, err := url.Parse(ann.attr("#invite", "value")) // on BASE_URL
	if err != nil || invite.Path != "/register" || invite.Query().Get("invite") == "" {
		t.Fatalf("invite link %v, %v", invite, err)
	}
	carl := person(t, browser, b.srv.URL, dir)
	carl.open(invite.RequestURI())
	carl.fill("#email", "carl@example.com", "#username", "carl", "#password", "correct horse", "#password2", "correct horse")
	carl.submit("form.card button[type=submit]", "Account created")
	if u, err := b.Store.UserByUsername(ctx, "carl"); err != nil || u.Pending || u.Role != domain.RoleStandard {
		t.Fatalf("the invited account: %+v, %v", u, err)
	}
}

// clickSubmit clicks the page's main form's button.
func clickSubmit() chromedp.Action[chromedp.Void] {
	return chromedp.Click(chromedp.CSS("form.card button[type=submit]"))
}

// TestBrowserAccount: a user changes their password (the current one required; their other
// session ends), username and e-mail, signs out a session, and deletes the account.
func TestBrowserAccount(t *testing.T) {
	chromiumPath(t)
	b := setup(t)
	dir := t.TempDir()
	browser := newBrowser(t)
	ctx := context.Background()
	register := func(name string) *tab {
		p := person(t, browser, b.srv.URL, dir)
		p.open("/register")
		p.fill("#email", name+"@example.com", "#username", name, "#password", "correct horse", "#password2", "correct horse")
		p.submit("form.card button[type=submit]", "Account created")
		return p
	}
	register("ann") // the admin
	bob := register("bob")
	phone := person(t, browser, b.srv.URL, dir)
	phone.open("/login")
	phone.fill("#email", "bob@example.com", "#password", "correct horse")
	phone.do(clickSubmit())
	phone.waitText("h1", "Latest reviews")
	phone.open("/account")
	phone.waitText("#sessions", "Sign out")

	bob.open("/account")
	bob.fill("#pw-current", "wrong horse", "#pw-new", "battery staple", "#pw-new2", "battery staple")
	bob.do(chromedp.Click(chromedp.CSS("#password button")))
	bob.waitText("main", "The current password is wrong")
	bob.fill("#pw-current", "correct horse", "#pw-new", "battery staple", "#pw-new2", "battery staple")
	bob.do(chromedp.Click(chromedp.CSS("#password button")))
	bob.waitText(".notice", "Password changed")
	// The phone's session is gone once its access token is checked again: its refresh is dead.
	u, _ := b.Store.UserByUsername(ctx, "bob")
	if list, err := b.site.API.Auth.Sessions(ctx, u.ID); err != nil || len(list) != 1 {
		t.Fatalf("sessions after the change: %d, %v; want 1", len(list), err)
	}

	bob.fill("#username-new", "ann")
	bob.do(chromedp.Click(chromedp.CSS("#username button")))
	bob.waitText("main", "Username already taken")
	bob.fill("#username-new", "robert")
	bob.do(chromedp.Click(chromedp.CSS("#username button")))
	bob.waitText(".notice", "Username changed")
	bob.waitText("main", "Signed in as robert")
	bob.fill("#email-new", "robert@example.com", "#email-current", "battery staple")
	bob.do(chromedp.Click(chromedp.CSS("#email button")))
	bob.waitText(".notice", "E-mail changed")
	bob.do(chromedp.Click(chromedp.CSS(`#sessions button`)))
	bob.waitText(".notice", "Session signed out")

	bob2 := person(t, browser, b.srv.URL, dir)
	bob2.open("/login")
	bob2.fill("#email", "robert@example.com", "#password", "battery staple")
	bob2.do(clickSubmit())
	bob2.waitText("h1", "Latest reviews")
	bob2.open("/account")
	bob2.fill("#delete-current", "battery staple")
	bob2.do(chromedp.Click(chromedp.CSS(`#delete input[name=confirm]`)), chromedp.Click(chromedp.CSS("#delete button")))
	bob2.waitText(".notice", "Your account is deleted")
	if _, err := b.Store.UserByID(ctx, u.ID); err == nil {
		t.Fatal("the account survived its deletion")
	}
}
