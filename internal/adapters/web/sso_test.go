package web_test

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"moviesdiary/internal/adapters/oidc"
	"moviesdiary/internal/adapters/oidc/oidctest"
	"moviesdiary/internal/app"
	"moviesdiary/internal/app/mediatest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/auth"
)

// The people at the test provider.
var (
	opAlice = oidctest.User{ID: "sub-alice", Username: "Alice@wonder.land", Password: "alice-secret",
		FirstName: "Alice", LastName: "Liddell", Email: "alice@example.org", EmailVerified: true}
	opBob = oidctest.User{ID: "sub-bob", Username: "bob", Password: "bob-secret",
		FirstName: "Bob", LastName: "Local", Email: "bob@example.org", EmailVerified: true}
	opCarol = oidctest.User{ID: "sub-carol", Username: "carol", Password: "carol-secret",
		FirstName: "Carol", LastName: "Unverified", Email: "carol@example.org", EmailVerified: false}
)

// ssoBundle is an instance offering single sign-on with a real OpenID provider.
type ssoBundle struct {
	*mediatest.Env
	t    *testing.T
	srv  *httptest.Server
	site *app.Site
	op   *oidctest.Provider
}

type ssoOptions struct {
	registration domain.RegistrationMode
	auth.SSOConfig
	scopes      []string
	groupsClaim string
	// requireTwoFactor is REQUIRE_TWO_FACTOR.
	requireTwoFactor bool
}

// setupSSO starts the provider with opAlice, opBob and opCarol, its client "web" allowed to
// redirect to this instance's callback, and the instance (its BASE_URL its real address).
func setupSSO(t *testing.T, o ssoOptions) *ssoBundle {
	t.Helper()
	if o.registration == "" {
		o.registration = domain.RegistrationOpen
	}
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	op := oidctest.Start(t, []oidctest.User{opAlice, opBob, opCarol}, base+"/auth/oidc/callback")
	p, err := oidc.New(oidc.Config{Issuer: op.Issuer, ClientID: oidctest.ClientID, ClientSecret: oidctest.ClientSecret,
		RedirectURL: base + "/auth/oidc/callback", Scopes: o.scopes, GroupsClaim: o.groupsClaim})
	if err != nil {
		t.Fatal(err)
	}
	env := mediatest.New(t)
	site, err := app.NewSite(env.Store, app.Options{Log: env.Log, BaseURL: base, Secret: testSecret,
		Registration: o.registration, Hasher: fastHasher, Images: env.Local, AuthRateLimit: 1000,
		RequireTwoFactor: o.requireTwoFactor, SignOn: &app.SignOn{Name: "TestID", Provider: p, SSOConfig: o.SSOConfig}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = site.Handler()
	srv.Start()
	t.Cleanup(srv.Close)
	return &ssoBundle{Env: env, t: t, srv: srv, site: site, op: op}
}

// client is a browser without JavaScript: a cookie jar, following redirects.
func ssoClient() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar}
}

// signIn signs in with the provider from the log-in page's link and returns the last page.
func (b *ssoBundle) signIn(c *http.Client, who oidctest.User) (int, string) {
	b.t.Helper()
	resp, body := oidctest.SignIn(b.t, c, b.srv.URL+"/auth/oidc/login?next=/diary", who.Username, who.Password)
	return resp.StatusCode, body
}

func (b *ssoBundle) get(c *http.Client, path string) (int, string) {
	b.t.Helper()
	resp, err := c.Get(b.srv.URL + path)
	if err != nil {
		b.t.Fatal(err)
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

// identityUser is the account linked to who's identity at the provider, or the error.
func (b *ssoBundle) identityUser(who oidctest.User) (domain.User, error) {
	return b.Store.UserByIdentity(context.Background(), domain.Identity{Issuer: b.op.Issuer, Subject: who.ID})
}

// TestSignOnNewUser: a first sign-in at the real provider makes an account (username from
// preferred_username, no password), the next one opens the same account, and the password
// log-in of an account without a password is refused clearly until one is set.
func TestSignOnNewUser(t *testing.T) {
	b := setupSSO(t, ssoOptions{SSOConfig: auth.SSOConfig{AutoRegister: true}})
	ctx := context.Background()

	// The log-in page offers the provider.
	if st, body := b.get(ssoClient(), "/login?next=/diary"); st != http.StatusOK ||
		!strings.Contains(body, `href="/auth/oidc/login?next=%2fdiary">Sign in with TestID</a>`) {
		t.Fatalf("log-in page %d lacks the sign-in link:\n%s", st, body)
	}
	c := ssoClient()
	st, body := b.signIn(c, opAlice)
	if st != http.StatusOK || !strings.Contains(body, "Signed in with TestID") || !strings.Contains(body, `url=/diary`) {
		t.Fatalf("sign-in ended %d:\n%s", st, body)
	}
	u, err := b.identityUser(opAlice)
	if err != nil || u.Username != "alice" || u.Email != "alice@example.org" || u.PasswordHash != "" ||
		u.Role != domain.RoleStandard || u.Pending {
		t.Fatalf("the new account %+v, %v; want alice, alice@example.org, no password, standard", u, err)
	}
	// The session works: the diary is the member's.
	if st, body := b.get(c, "/diary"); st != http.StatusOK || !strings.Contains(body, `/u/`+u.ID.String()) {
		t.Fatalf("diary after the sign-in: %d\n%s", st, body)
	}
	// A second sign-in, in another browser, opens the same account.
	c2 := ssoClient()
	if st, _ := b.signIn(c2, opAlice); st != http.StatusOK {
		t.Fatalf("second sign-in: %d", st)
	}
	if again, err := b.identityUser(opAlice); err != nil || again.ID != u.ID {
		t.Fatalf("second sign-in's account %+v, %v; want %s", again, err, u.ID)
	}
	if all, err := b.Store.UserSummaries(ctx); err != nil || len(all) != 1 {
		t.Fatalf("%d accounts after two sign-ins of one person (%v); want 1", len(all), err)
	}

	// Password log-in: refused, saying why.
	if _, err := b.site.API.Auth.Login(ctx, "alice@example.org", "whatever-password"); err == nil ||
		!strings.Contains(err.Error(), "has no password") {
		t.Fatalf("password log-in without a password: %v; want the clear refusal", err)
	}
	// The signed-in owner sets a first password on the account page, without a current one;
	// it then logs in.
	if st, body := b.get(c, "/account"); st != http.StatusOK || !strings.Contains(body, "Set a password") ||
		strings.Contains(body, `id="pw-current"`) {
		t.Fatalf("account page of an account without a password: %d\n%s", st, body)
	}
	base, _ := url.Parse(b.srv.URL)
	csrf := ""
	for _, ck := range c.Jar.Cookies(base) {
		if ck.Name == "md_csrf" {
			csrf = ck.Value
		}
	}
	resp, err := c.PostForm(b.srv.URL+"/account/password", url.Values{"csrf": {csrf},
		"new_password": {"a new password"}, "new_password2": {"a new password"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Query().Get("done") != "password" {
		t.Fatalf("set a first password: %d at %s", resp.StatusCode, resp.Request.URL)
	}
	if _, err := b.site.API.Auth.Login(ctx, "alice@example.org", "a new password"); err != nil {
		t.Fatalf("log-in with the new password: %v", err)
	}
	// Now a change needs it.
	if _, err := b.site.API.Auth.ChangePassword(ctx, u.ID, "", "another password"); err == nil {
		t.Fatal("changing a set password without the current one succeeded")
	}
}

// TestSignOnUsernameNeverReissued: a new account's username is deduplicated against the
// accounts that have it and the names of deleted ones.
func TestSignOnUsernameNeverReissued(t *testing.T) {
	b := setupSSO(t, ssoOptions{SSOConfig: auth.SSOConfig{AutoRegister: true}})
	ctx := context.Background()
	admin, err := b.site.API.Auth.Register(ctx, "admin@example.net", "admin", "correct horse", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Store.SetUserRole(ctx, admin.ID, domain.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	gone, err := b.site.API.Auth.Register(ctx, "old-alice@example.net", "alice", "correct horse", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Store.DeleteUser(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := b.site.API.Auth.Register(ctx, "alice2@example.net", "alice2", "correct horse", ""); err != nil {
		t.Fatal(err)
	}
	if st, body := b.signIn(ssoClient(), opAlice); st != http.StatusOK {
		t.Fatalf("sign-in: %d\n%s", st, body)
	}
	if u, err := b.identityUser(opAlice); err != nil || u.Username != "alice3" {
		t.Fatalf("account %+v, %v; want alice3 (alice was deleted, alice2 is taken)", u, err)
	}
}

// TestSignOnLinkByEmail: a first sign-in whose e-mail is a local account's joins it only when
// OIDC_LINK_BY_EMAIL allows and the provider verified the address; otherwise it is refused with
// a clear 4xx and nothing changes.
func TestSignOnLinkByEmail(t *testing.T) {
	ctx := context.Background()
	local := func(b *ssoBundle, email, name string) domain.User {
		u, err := b.site.API.Auth.Register(ctx, email, name, "correct horse", "")
		if err != nil {
			t.Fatal(err)
		}
		return u
	}

	t.Run("Off", func(t *testing.T) {
		b := setupSSO(t, ssoOptions{SSOConfig: auth.SSOConfig{AutoRegister: true}})
		local(b, "bob@example.org", "bob")
		st, body := b.signIn(ssoClient(), opBob)
		if st != http.StatusConflict || !strings.Contains(body, "already exists") {
			t.Fatalf("sign-in onto a local account's e-mail, linking off: %d\n%s", st, body)
		}
		if _, err := b.identityUser(opBob); err == nil {
			t.Fatal("the refused sign-in was linked")
		}
	})
	t.Run("Verified", func(t *testing.T) {
		b := setupSSO(t, ssoOptions{SSOConfig: auth.SSOConfig{AutoRegister: true, LinkByEmail: true}})
		bob := local(b, "bob@example.org", "bob")
		c := ssoClient()
		if st, body := b.signIn(c, opBob); st != http.StatusOK {
			t.Fatalf("sign-in: %d\n%s", st, body)
		}
		if u, err := b.identityUser(opBob); err != nil || u.ID != bob.ID {
			t.Fatalf("linked account %+v, %v; want bob's %s", u, err, bob.ID)
		}
		// The local account keeps its password.
		if _, err := b.site.API.Auth.Login(ctx, "bob@example.org", "correct horse"); err != nil {
			t.Fatalf("bob's password after the link: %v", err)
		}
	})
	t.Run("Unverified", func(t *testing.T) {
		b := setupSSO(t, ssoOptions{SSOConfig: auth.SSOConfig{AutoRegister: true, LinkByEmail: true}})
		local(b, "carol@example.org", "carol")
		st, body := b.signIn(ssoClient(), opCarol)
		if st != http.StatusForbidden || !strings.Contains(body, "has not verified the address") {
			t.Fatalf("sign-in with an unverified e-mail: %d\n%s", st, body)
		}
		if _, err := b.identityUser(opCarol); err == nil {
			t.Fatal("the unverified sign-in was linked")
		}
	})
}

// TestSignOnRegistrationModes: a new person's account follows REGISTRATION_MODE (approval:
// made, waiting; closed: refused) and OIDC_AUTO_REGISTER (off: refused).
func TestSignOnRegistrationModes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		o      ssoOptions
		status int
		want   string
		made   bool
	}{
		{"Approval", ssoOptions{registration: domain.RegistrationApproval, SSOConfig: auth.SSOConfig{AutoRegister: true}},
			http.StatusForbidden, "waiting for an admin", true},
		{"Closed", ssoOptions{registration: domain.RegistrationClosed, SSOConfig: auth.SSOConfig{AutoRegister: true}},
			http.StatusForbidden, "does not create accounts", false},
		{"AutoRegisterOff", ssoOptions{SSOConfig: auth.SSOConfig{AutoRegister: false}},
			http.StatusForbidden, "does not create accounts", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := setupSSO(t, tc.o)
			st, body := b.signIn(ssoClient(), opAlice)
			if st != tc.status || !strings.Contains(body, tc.want) {
				t.Fatalf("sign-in: %d, want %d %q\n%s", st, tc.status, tc.want, body)
			}
			u, err := b.identityUser(opAlice)
			if tc.made != (err == nil) || tc.made && !u.Pending {
				t.Fatalf("account %+v, %v; want made (pending): %v", u, err, tc.made)
			}
		})
	}
}

// TestSignOnAdminGroup maps the provider's groups to the admin role. The example provider has
// no groups claim; its custom_scope adds custom_claim {"other": "stuff"} to the ID token, so
// OIDC_GROUPS_CLAIM=custom_claim.other reads the group "stuff" from the real token.
func TestSignOnAdminGroup(t *testing.T) {
	scopes := []string{"openid", "email", "profile", oidctest.CustomScope}
	t.Run("InGroup", func(t *testing.T) {
		b := setupSSO(t, ssoOptions{scopes: scopes, groupsClaim: "custom_claim.other",
			SSOConfig: auth.SSOConfig{AutoRegister: true, AdminGroup: "stuff"}})
		if st, body := b.signIn(ssoClient(), opAlice); st != http.StatusOK {
			t.Fatalf("sign-in: %d\n%s", st, body)
		}
		if u, err := b.identityUser(opAlice); err != nil || u.Role != domain.RoleAdmin {
			t.Fatalf("account %+v, %v; want an admin", u, err)
		}
	})
	t.Run("NotInGroup", func(t *testing.T) {
		b := setupSSO(t, ssoOptions{scopes: scopes, groupsClaim: "custom_claim.other",
			SSOConfig: auth.SSOConfig{LinkByEmail: true, AdminGroup: "moviesdiary-admins"}})
		ctx := context.Background()
		// Two admins, so the one who signs in may be demoted.
		for _, n := range []string{"ann", "alice"} {
			u, err := b.site.API.Auth.Register(ctx, n+"@example.org", n, "correct horse", "")
			if err != nil {
				t.Fatal(err)
			}
			if err := b.Store.SetUserRole(ctx, u.ID, domain.RoleAdmin); err != nil {
				t.Fatal(err)
			}
		}
		if st, body := b.signIn(ssoClient(), opAlice); st != http.StatusOK {
			t.Fatalf("sign-in: %d\n%s", st, body)
		}
		if u, err := b.identityUser(opAlice); err != nil || u.Role != domain.RoleStandard {
			t.Fatalf("account %+v, %v; want demoted to standard (not in the admin group)", u, err)
		}
	})
}

// TestSignOnUnderRequiredTwoFactor: on an instance that requires two factors, an account made by
// single sign-on, without a password, is guarded by its provider and not sent to enrol (it could
// not: enrolment asks for the password); once it sets a password, it is.
func TestSignOnUnderRequiredTwoFactor(t *testing.T) {
	b := setupSSO(t, ssoOptions{SSOConfig: auth.SSOConfig{AutoRegister: true}, requireTwoFactor: true})
	c := ssoClient()
	if st, body := b.signIn(c, opAlice); st != http.StatusOK || !strings.Contains(body, "Signed in with TestID") {
		t.Fatalf("sign-in ended %d:\n%s", st, body)
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Get(b.srv.URL + "/diary")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the diary of an account without a password: %d %s, want 200", resp.StatusCode, resp.Header.Get("Location"))
	}
	u, err := b.identityUser(opAlice)
	if err != nil {
		t.Fatal(err)
	}
	if must, err := b.site.API.Auth.MustEnrol(context.Background(), u.ID); err != nil || must {
		t.Fatalf("MustEnrol without a password: %v, %v", must, err)
	}
	hash, err := fastHasher.Hash("a new password")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Store.SetPassword(context.Background(), u.ID, hash); err != nil {
		t.Fatal(err)
	}
	if must, err := b.site.API.Auth.MustEnrol(context.Background(), u.ID); err != nil || !must {
		t.Fatalf("MustEnrol with a password: %v, %v; want true", must, err)
	}
}
