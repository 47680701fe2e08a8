// Package oidc is single sign-on's side of the OpenID Connect protocol, over
// github.com/coreos/go-oidc and golang.org/x/oauth2: the authorization code flow with PKCE
// (S256), a state and a nonce; the ID token verified (signature by the provider's published
// keys, issuer, audience, expiry, nonce); the profile claims read from the token and the
// UserInfo endpoint. Which local account a sign-in opens is the auth use case's decision.
package oidc

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"moviesdiary/internal/domain"
)

// ScopesDefault are the scopes asked for when none are configured: the ID token, the e-mail
// address (an account needs one) and the profile (preferred_username).
var ScopesDefault = []string{gooidc.ScopeOpenID, "email", "profile"}

// TimeoutDefault bounds each request to the provider.
const TimeoutDefault = 10 * time.Second

// Config is a provider and this instance's client at it.
type Config struct {
	// Issuer is the provider's issuer URL, exactly as its discovery document says it
	// (OIDC_ISSUER).
	Issuer string
	// ClientID and ClientSecret are this instance's client registration at the provider.
	ClientID     string
	ClientSecret string
	// RedirectURL is the callback registered at the provider: BASE_URL/auth/oidc/callback.
	RedirectURL string
	// Scopes asked for; default ScopesDefault ("openid" is added when missing).
	Scopes []string
	// GroupsClaim names the claim holding the person's groups: a top-level claim, or a path
	// of object keys joined by dots (realm_access.roles); default "groups".
	GroupsClaim string
	// HTTPClient makes the requests to the provider; default one with Timeout.
	HTTPClient *http.Client
	// Timeout bounds each request to the provider; default TimeoutDefault.
	Timeout time.Duration
}

// Provider is one OpenID provider. Its discovery document is fetched on first use and kept, so
// a provider that is down when the server starts delays only the sign-ins, not the start.
type Provider struct {
	cfg Config

	mu       sync.Mutex
	provider *gooidc.Provider
	verifier *gooidc.IDTokenVerifier
	oauth    oauth2.Config
}

// New checks the configuration; it does not contact the provider.
func New(cfg Config) (*Provider, error) {
	u, err := url.Parse(cfg.Issuer)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("OIDC_ISSUER: %q is not an http(s) URL", cfg.Issuer)
	}
	if cfg.ClientID == "" {
		return nil, errors.New("OIDC_CLIENT_ID: must be set with OIDC_ISSUER")
	}
	if cfg.RedirectURL == "" {
		return nil, errors.New("oidc: no redirect URL")
	}
	if len(cfg.Scopes) == 0 {
		cfg.Scopes = ScopesDefault
	}
	if !slices.Contains(cfg.Scopes, gooidc.ScopeOpenID) {
		cfg.Scopes = append([]string{gooidc.ScopeOpenID}, cfg.Scopes...)
	}
	if cfg.GroupsClaim == "" {
		cfg.GroupsClaim = "groups"
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = TimeoutDefault
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: cfg.Timeout}
	}
	return &Provider{cfg: cfg}, nil
}

// errUnreachable answers a sign-in while the provider cannot be reached.
func errUnreachable(err error) error {
	return &domain.UnavailableError{What: "sign-in provider", RetryAfter: 30 * time.Second, Err: err}
}

// withClient is ctx carrying the provider's HTTP client, the way go-oidc and oauth2 take it.
func (p *Provider) withClient(ctx context.Context) context.Context {
	return gooidc.ClientContext(ctx, p.cfg.HTTPClient)
}

// discover fetches the provider's discovery document once (a failure is tried again on the
// next sign-in) and returns the OAuth 2 client and the ID token verifier over it.
func (p *Provider) discover(ctx context.Context) (*oauth2.Config, *gooidc.IDTokenVerifier, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.provider == nil {
		ctx, cancel := context.WithTimeout(p.withClient(ctx), p.cfg.Timeout)
		defer cancel()
		provider, err := gooidc.NewProvider(ctx, p.cfg.Issuer)
		if err != nil {
			return nil, nil, errUnreachable(fmt.Errorf("discovery of %s: %w", p.cfg.Issuer, err))
		}
		// The key set fetches the provider's keys with the HTTP client, not the request's
		// context (go-oidc ignores its cancellation).
		p.verifier = provider.VerifierContext(p.withClient(context.Background()), &gooidc.Config{ClientID: p.cfg.ClientID})
		p.oauth = oauth2.Config{ClientID: p.cfg.ClientID, ClientSecret: p.cfg.ClientSecret,
			Endpoint: provider.Endpoint(), RedirectURL: p.cfg.RedirectURL, Scopes: p.cfg.Scopes}
		p.provider = provider
	}
	oc := p.oauth
	return &oc, p.verifier, nil
}
