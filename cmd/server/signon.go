package main

import (
	"log/slog"

	"moviesdiary/internal/adapters/oidc"
	"moviesdiary/internal/app"
	"moviesdiary/internal/config"
	"moviesdiary/internal/usecase/auth"
)

// newSignOn is single sign-on from the OIDC_* settings, nil when OIDC_ISSUER is unset. The
// provider is not contacted here: a provider that is down delays sign-ins, not the start.
func newSignOn(cfg config.Config, log *slog.Logger) (*app.SignOn, error) {
	if !cfg.SignOnEnabled() {
		return nil, nil
	}
	p, err := oidc.New(oidc.Config{Issuer: cfg.OIDCIssuer, ClientID: cfg.OIDCClientID, ClientSecret: cfg.OIDCClientSecret,
		RedirectURL: cfg.SignOnRedirectURL(), Scopes: cfg.SignOnScopes(), GroupsClaim: cfg.OIDCGroupsClaim})
	if err != nil {
		return nil, err
	}
	log.Info("single sign-on is on", "issuer", cfg.OIDCIssuer, "redirect_url", cfg.SignOnRedirectURL(),
		"link_by_email", cfg.OIDCLinkByEmail, "auto_register", cfg.OIDCAutoRegister, "admin_group", cfg.OIDCAdminGroup)
	return &app.SignOn{Name: cfg.OIDCProviderName, Provider: p, SSOConfig: auth.SSOConfig{
		LinkByEmail: cfg.OIDCLinkByEmail, AutoRegister: cfg.OIDCAutoRegister, AdminGroup: cfg.OIDCAdminGroup, Log: log}}, nil
}
