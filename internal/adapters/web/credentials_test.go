package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/pquerna/otp/totp"
)

// totpCode is an authenticator app's code of secret at at.
func totpCode(t testing.TB, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCode(secret, at)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// apiStatus is the status of GET path on the API with a bearer token.
func apiStatus(t testing.TB, srv, path, token string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, srv+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestBrowserTokensAndTwoFactor: on /account, without JavaScript, a user makes a personal access
// token (shown once; it works on the API), revokes it, turns two factors on with a code, and then
// logs in with the password and a code.
func TestBrowserTokensAndTwoFactor(t *testing.T) {
	chromiumPath(t)
	b := setup(t)
	dir := t.TempDir()
	browser := newBrowser(t)
	register := func(name string) *tab {
		p := person(t, browser, b.srv.URL, dir)
		p.open("/register")
		p.fill("#email", name+"@example.com", "#username", name, "#password", "correct horse", "#password2", "correct horse")
		p.submit("form.card button[type=submit]", "Account created")
		return p
	}
	register("ann") // the admin
	bob := register("bob")

	bob.open("/account")
	bob.fill("#token-name", "cron job", "#token-scope", "write")
	bob.do(chromedp.Click(chromedp.CSS(`#tokens form[action="/account/tokens"] button`)))
	bob.waitText("#new-token", "mdp_")
	secret := bob.text("#new-token")
	if got := apiStatus(t, b.srv.URL, "/api/v1/watchlist", strings.TrimSpace(secret)); got != http.StatusOK {
		t.Fatalf("the new token: %d", got)
	}
	bob.open("/account")
	bob.waitText("#tokens table", "cron job")
	if strings.Contains(bob.text("#tokens"), "mdp_") {
		t.Fatal("the token is shown again")
	}
	bob.do(chromedp.Click(chromedp.CSS(`#tokens table button`)))
	bob.waitText(".notice", "Token revoked")
	if got := apiStatus(t, b.srv.URL, "/api/v1/watchlist", strings.TrimSpace(secret)); got != http.StatusUnauthorized {
		t.Fatalf("the revoked token: %d", got)
	}

	// Two factors: the password, then a code from the app.
	bob.fill("#tf-current", "correct horse")
	bob.do(chromedp.Click(chromedp.CSS(`#two-factor form[action="/account/two-factor/setup"] button`)))
	bob.waitText("#totp-uri", "otpauth://totp/")
	key := strings.TrimSpace(bob.text("#totp-secret"))
	bob.fill("#tf-code", "000000")
	bob.do(chromedp.Click(chromedp.CSS(`#two-factor form[action="/account/two-factor/confirm"] button`)))
	bob.waitText("main", "Invalid two-factor code")
	bob.fill("#tf-code", totpCode(t, key, time.Now()))
	bob.do(chromedp.Click(chromedp.CSS(`#two-factor form[action="/account/two-factor/confirm"] button`)))
	bob.waitText("#recovery-codes", "-")
	bob.waitText("#two-factor", "10 recovery codes left")

	phone := person(t, browser, b.srv.URL, dir)
	phone.open("/login")
	phone.fill("#email", "bob@example.com", "#password", "correct horse")
	phone.do(clickSubmit())
	phone.waitText("main", "two-factor authentication")
	phone.fill("#code", "123456")
	phone.do(clickSubmit())
	phone.waitText("main", "Invalid two-factor code")
	// The code of the next time step: the confirmation spent the current one.
	phone.fill("#code", totpCode(t, key, time.Now().Add(30*time.Second)))
	phone.do(clickSubmit())
	phone.waitText("h1", "Latest reviews")
	phone.open("/account")
	phone.waitText("main", "Signed in as bob")
}

// TestWebRequireTwoFactor: with REQUIRE_TWO_FACTOR a signed-in user without two factors is sent
// to the account page's enrolment from every page, and forms elsewhere are refused.
func TestWebRequireTwoFactor(t *testing.T) {
	t.Parallel()
	b := setup(t, options{requireTwoFactor: true})
	br := b.register("ann")
	for _, path := range []string{"/", "/watchlist", "/settings", "/diary"} {
		if p := mustStatus(t, br.get(path), http.StatusSeeOther); p.location() != "/account#two-factor" {
			t.Fatalf("%s → %q", path, p.location())
		}
	}
	mustStatus(t, br.post("/watchlist/add", url.Values{"title": {"Heat"}, "year": {"1995"}}), http.StatusForbidden)
	p := mustStatus(t, br.get("/account"), http.StatusOK)
	contains(t, p, "requires two-factor authentication")
	p = mustStatus(t, br.post("/account/two-factor/setup", url.Values{"current_password": {"correct horse"}}), http.StatusOK)
	m := regexp.MustCompile(`id="totp-secret">([A-Z2-7]+)<`).FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no secret on the page:\n%s", excerpt(p.body))
	}
	p = mustStatus(t, br.post("/account/two-factor/confirm", url.Values{"code": {totpCode(t, m[1], time.Now())}}), http.StatusOK)
	contains(t, p, `id="recovery-codes"`)
	mustStatus(t, br.get("/watchlist"), http.StatusOK)
	if n := b.String(`SELECT count(*) FROM recovery_codes`); n != "10" {
		t.Fatalf("%s recovery codes stored", n)
	}
}

// text is the text of the element sel.
func (tb *tab) text(sel string) string {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 10*time.Second)
	defer cancel()
	got, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		tb.t.Fatalf("text of %s: %v\n%s", sel, err, tb.where())
	}
	return got
}
