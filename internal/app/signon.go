package app

import (
	"crypto/hmac"
	"crypto/sha256"
	"log/slog"

	"moviesdiary/internal/adapters/web"
	"moviesdiary/internal/usecase/auth"
)

// SignOn is single sign-on's wiring: the OpenID provider (adapters/oidc.Provider), the name its
// button shows and the rules of which account a sign-in opens.
type SignOn struct {
	// Name is the provider's name on the log-in page's button (OIDC_PROVIDER_NAME).
	Name     string
	Provider web.SignOnProvider
	auth.SSOConfig
}

// pages is single sign-on for the web pages over the account service. The key that signs a
// sign-in's cookie derives from the token secret, so it needs no setting of its own and
// differs from the secret itself.
func (s *SignOn) pages(svc *auth.Service, store Store, secret []byte, log *slog.Logger) *web.SignOn {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte("moviesdiary single sign-on state"))
	cfg := s.SSOConfig
	if cfg.Log == nil {
		cfg.Log = log
	}
	return &web.SignOn{Name: s.Name, Provider: s.Provider, Accounts: auth.NewSSO(svc, store, cfg), Key: mac.Sum(nil)}
}
