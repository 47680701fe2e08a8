package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/adapters/oidc/oidctest"
	"moviesdiary/internal/adapters/web"
	"moviesdiary/internal/usecase/auth"
)

// TestSignOnBadCallbacks (issue 35, bad input and abuse): a callback that did not come from the
// sign-in this browser started, or that the provider refused, is a clear 4xx on the log-in
// page, signs nobody in and creates no account. Each case uses the real provider's real codes.
func TestSignOnBadCallbacks(t *testing.T) {
	b := setupSSO(t, ssoOptions{SSOConfig: auth.SSOConfig{AutoRegister: true}})
	ctx := context.Background()
	// noFollow is a browser that stops at our callback, so the test holds its URL.
	noFollow := func() *http.Client {
		c := ssoClient()
		c.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
			if strings.HasPrefix(req.URL.String(), b.srv.URL+"/auth/oidc/callback") {
				return http.ErrUseLastResponse
			}
			return nil
		}
		return c
	}
	// codeFor runs a real sign-in at the provider up to the redirect to our callback and
	// returns that callback URL (a valid code and the attempt's state) and the client holding
	// the attempt's cookie.
	codeFor := func() (*url.URL, *http.Client) {
		c := noFollow()
		resp, body := oidctest.SignIn(t, c, b.srv.URL+"/auth/oidc/login", opAlice.Username, opAlice.Password)
		loc, err := resp.Location()
		if resp.StatusCode != http.StatusFound || err != nil || loc.Query().Get("code") == "" {
			t.Fatalf("the provider's answer %d (%v): %s", resp.StatusCode, err, body)
		}
		return loc, c
	}
	attemptCookie := func(c *http.Client) *http.Cookie {
		u, _ := url.Parse(b.srv.URL)
		for _, ck := range c.Jar.Cookies(u) {
			if ck.Name == web.SignOnCookie {
				return ck
			}
		}
		t.Fatal("no sign-in cookie")
		return nil
	}
	setCookie := func(c *http.Client, value string) {
		u, _ := url.Parse(b.srv.URL)
		c.Jar.SetCookies(u, []*http.Cookie{{Name: web.SignOnCookie, Value: value, Path: "/"}})
	}
	call := func(c *http.Client, u string) (int, string) {
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var sb strings.Builder
		buf := make([]byte, 32<<10)
		for {
			n, err := resp.Body.Read(buf)
			sb.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return resp.StatusCode, sb.String()
	}
	withQuery := func(u *url.URL, key, value string) string {
		q := u.Query()
		if value == "" {
			q.Del(key)
		} else {
			q.Set(key, value)
		}
		v := *u
		v.RawQuery = q.Encode()
		return v.String()
	}
	so := b.site.Web.SignOn

	for _, tc := range []struct {
		name   string
		do     func() (int, string)
		status int
		want   string
	}{
		{"WrongState", func() (int, string) {
			loc, c := codeFor()
			return call(c, withQuery(loc, "state", "not-the-state"))
		}, http.StatusBadRequest, "its state differs"},
		{"NoCookie", func() (int, string) {
			loc, _ := codeFor()
			return call(ssoClient(), loc.String()) // another browser: a login CSRF
		}, http.StatusBadRequest, "not started in this browser"},
		{"ForgedCookie", func() (int, string) {
			loc, c := codeFor()
			ck := attemptCookie(c)
			payload, mac, _ := strings.Cut(ck.Value, ".")
			setCookie(c, payload+"x."+mac)
			return call(c, loc.String())
		}, http.StatusBadRequest, "not started in this browser"},
		{"ExpiredCookie", func() (int, string) {
			loc, c := codeFor()
			a, ok := so.Open(attemptCookie(c).Value)
			if !ok {
				t.Fatal("the real cookie does not open")
			}
			a.Expires = time.Now().Add(-time.Second).Unix()
			setCookie(c, so.Seal(a))
			return call(c, loc.String())
		}, http.StatusBadRequest, "has expired"},
		{"WrongNonce", func() (int, string) {
			// A valid code and state, with a cookie (correctly sealed) whose nonce is not
			// the one the provider put in the ID token.
			loc, c := codeFor()
			a, _ := so.Open(attemptCookie(c).Value)
			a.Nonce = "a-nonce-of-another-sign-in"
			setCookie(c, so.Seal(a))
			return call(c, loc.String())
		}, http.StatusBadRequest, "nonce differs"},
		{"WrongVerifier", func() (int, string) {
			loc, c := codeFor()
			a, _ := so.Open(attemptCookie(c).Value)
			a.Verifier = "a-verifier-of-another-sign-in-a-verifier-of-another"
			setCookie(c, so.Seal(a))
			return call(c, loc.String())
		}, http.StatusBadRequest, "refused the sign-in code"},
		{"MissingCode", func() (int, string) {
			loc, c := codeFor()
			return call(c, withQuery(loc, "code", ""))
		}, http.StatusBadRequest, "carries no code"},
		{"AccessDenied", func() (int, string) {
			loc, c := codeFor()
			q := url.Values{"error": {"access_denied"}, "error_description": {"the user said no"}, "state": {loc.Query().Get("state")}}
			return call(c, b.srv.URL+"/auth/oidc/callback?"+q.Encode())
		}, http.StatusForbidden, "did not succeed (access_denied): the user said no"},
		{"Replayed", func() (int, string) {
			loc, c := codeFor()
			if st, body := call(c, loc.String()); st != http.StatusOK {
				t.Fatalf("the genuine callback: %d\n%s", st, body)
			}
			return call(c, loc.String()) // the cookie is spent
		}, http.StatusBadRequest, "not started in this browser"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, body := tc.do()
			if st != tc.status || !strings.Contains(body, tc.want) {
				t.Fatalf("callback: %d, want %d with %q\n%s", st, tc.status, tc.want, body)
			}
			if tc.name != "Replayed" {
				if _, err := b.identityUser(opAlice); err == nil {
					t.Fatal("a refused callback made or linked an account")
				}
			}
		})
	}
	// Only the replay case's genuine sign-in made an account.
	if all, err := b.Store.UserSummaries(ctx); err != nil || len(all) != 1 {
		t.Fatalf("%d accounts (%v); want only the genuine sign-in's", len(all), err)
	}
}
