package oidc_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"

	"moviesdiary/internal/adapters/oidc"
	"moviesdiary/internal/adapters/oidc/oidctest"
	"moviesdiary/internal/domain"
)

var alice = oidctest.User{ID: "sub-alice", Username: "Alice.Liddell@wonder.land", Password: "alice-secret",
	FirstName: "Alice", LastName: "Liddell", Email: "alice@example.org", EmailVerified: true}

// callback is the client's redirect URI: it keeps the query of each request.
type callback struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []url.Values
}

func newCallback(t *testing.T) *callback {
	c := &callback{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.got = append(c.got, r.URL.Query())
		c.mu.Unlock()
		_, _ = w.Write([]byte("back"))
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *callback) last(t *testing.T) url.Values {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.got) == 0 {
		t.Fatal("the provider never redirected to the callback")
	}
	return c.got[len(c.got)-1]
}

// signIn runs the provider's login for one attempt and returns the callback's query.
func signIn(t *testing.T, p *oidc.Provider, cb *callback, state, nonce, verifier string) url.Values {
	t.Helper()
	authURL, err := p.AuthURL(context.Background(), state, nonce, verifier)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(authURL)
	if q := u.Query(); q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" ||
		q.Get("nonce") != nonce || q.Get("state") != state {
		t.Fatalf("authorization request %s lacks PKCE S256, nonce or state", authURL)
	}
	jar, _ := cookiejar.New(nil)
	resp, body := oidctest.SignIn(t, &http.Client{Jar: jar}, authURL, alice.Username, alice.Password)
	if resp.StatusCode != http.StatusOK || body != "back" {
		t.Fatalf("sign-in ended %d at %s: %s", resp.StatusCode, resp.Request.URL, body)
	}
	return cb.last(t)
}

func newProvider(t *testing.T, cb *callback, scopes ...string) (*oidc.Provider, *oidctest.Provider) {
	op := oidctest.Start(t, []oidctest.User{alice}, cb.srv.URL+"/cb")
	p, err := oidc.New(oidc.Config{Issuer: op.Issuer, ClientID: oidctest.ClientID, ClientSecret: oidctest.ClientSecret,
		RedirectURL: cb.srv.URL + "/cb", Scopes: scopes, GroupsClaim: "custom_claim.other"})
	if err != nil {
		t.Fatal(err)
	}
	return p, op
}

// TestExchange signs in at the real provider and checks the claims the use case gets: the
// identity from the verified ID token, the profile from UserInfo, the groups from a custom claim.
func TestExchange(t *testing.T) {
	cb := newCallback(t)
	p, op := newProvider(t, cb, "openid", "email", "profile", oidctest.CustomScope)
	ctx := context.Background()

	q := signIn(t, p, cb, "state-1", "nonce-1", "verifier-one-verifier-one-verifier-one-0123456")
	if q.Get("state") != "state-1" || q.Get("code") == "" {
		t.Fatalf("callback query %v: want state-1 and a code", q)
	}
	c, err := p.Exchange(ctx, q.Get("code"), "verifier-one-verifier-one-verifier-one-0123456", "nonce-1")
	if err != nil {
		t.Fatal(err)
	}
	want := domain.Identity{Issuer: op.Issuer, Subject: "sub-alice"}
	if c.Identity != want || c.Email != "alice@example.org" || !c.EmailVerified ||
		c.PreferredUsername != alice.Username || c.Name != "Alice Liddell" || !slices.Equal(c.Groups, []string{"stuff"}) {
		t.Fatalf("claims %+v; want %v, alice@example.org verified, %s, groups [stuff]", c, want, alice.Username)
	}
	// A code is spent once.
	if _, err := p.Exchange(ctx, q.Get("code"), "verifier-one-verifier-one-verifier-one-0123456", "nonce-1"); !errors.Is(err, domain.ErrInvalid) {
		t.Fatalf("second exchange of one code: %v; want an invalid-request error", err)
	}
}

// TestExchangeRefusals: the exchange of a real code fails with a 4xx kind of error, and no
// claims, when the PKCE verifier or the nonce is not the sign-in's.
func TestExchangeRefusals(t *testing.T) {
	cb := newCallback(t)
	p, _ := newProvider(t, cb)
	ctx := context.Background()
	const verifier = "verifier-two-verifier-two-verifier-two-0123456789"

	q := signIn(t, p, cb, "s", "nonce-2", verifier)
	if _, err := p.Exchange(ctx, q.Get("code"), "another-verifier-another-verifier-another-0123", "nonce-2"); !errors.Is(err, domain.ErrInvalid) {
		t.Fatalf("exchange with the wrong PKCE verifier: %v; want refused", err)
	}
	q = signIn(t, p, cb, "s", "nonce-3", verifier)
	c, err := p.Exchange(ctx, q.Get("code"), verifier, "a-nonce-of-another-sign-in")
	if !errors.Is(err, domain.ErrInvalid) || c.Subject != "" {
		t.Fatalf("exchange with the wrong nonce: %+v, %v; want refused", c, err)
	}
	// Without the custom scope there is no groups claim.
	q = signIn(t, p, cb, "s", "nonce-4", verifier)
	if c, err := p.Exchange(ctx, q.Get("code"), verifier, "nonce-4"); err != nil || c.Groups != nil {
		t.Fatalf("claims %+v, %v; want no groups", c, err)
	}
}

// TestUnreachable: a provider that does not answer makes a sign-in unavailable (503), not a
// failure of ours, and the server starts regardless (New does not contact it).
func TestUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	p, err := oidc.New(oidc.Config{Issuer: srv.URL, ClientID: "x", RedirectURL: "http://localhost/cb"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.AuthURL(context.Background(), "s", "n", "v"); !errors.Is(err, domain.ErrUnavailable) {
		t.Fatalf("AuthURL with the provider down: %v; want unavailable", err)
	}
}
