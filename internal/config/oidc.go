package config

import (
	"fmt"
	"net/url"
	"strings"
)

// OIDC is single sign-on with an OpenID Connect provider: set OIDC_ISSUER to offer it.
type OIDC struct {
	// OIDCIssuer is the provider's issuer URL (its discovery document lies below it); empty
	// turns single sign-on off.
	OIDCIssuer       string `envconfig:"OIDC_ISSUER"`
	OIDCClientID     string `envconfig:"OIDC_CLIENT_ID"`
	OIDCClientSecret string `envconfig:"OIDC_CLIENT_SECRET" secret:"true"`
	// OIDCRedirectURL is the callback registered at the provider; empty derives it from
	// BASE_URL (BASE_URL/auth/oidc/callback).
	OIDCRedirectURL string `envconfig:"OIDC_REDIRECT_URL"`
	// OIDCProviderName is the log-in page's button: "Sign in with <name>".
	OIDCProviderName string `envconfig:"OIDC_PROVIDER_NAME" default:"single sign-on"`
	// OIDCScopes are asked for, space- or comma-separated ("openid" is always added).
	OIDCScopes string `envconfig:"OIDC_SCOPES" default:"openid email profile"`
	// OIDCLinkByEmail lets a first sign-in join the local account with its e-mail address
	// when the provider says it verified it.
	OIDCLinkByEmail bool `envconfig:"OIDC_LINK_BY_EMAIL" default:"false"`
	// OIDCAutoRegister lets a first sign-in without an account make one, as REGISTRATION_MODE
	// allows the registration form.
	OIDCAutoRegister bool `envconfig:"OIDC_AUTO_REGISTER" default:"true"`
	// OIDCAdminGroup, when set, gives the role from the groups claim at every sign-in: admin
	// in the group, standard outside it.
	OIDCAdminGroup string `envconfig:"OIDC_ADMIN_GROUP"`
	// OIDCGroupsClaim names the groups claim (dots for a nested one: realm_access.roles).
	OIDCGroupsClaim string `envconfig:"OIDC_GROUPS_CLAIM" default:"groups"`
}

// SignOnEnabled reports whether single sign-on is configured.
func (c Config) SignOnEnabled() bool { return c.OIDCIssuer != "" }

// SignOnRedirectURL is OIDC_REDIRECT_URL, else BASE_URL/auth/oidc/callback.
func (c Config) SignOnRedirectURL() string {
	if c.OIDCRedirectURL != "" {
		return c.OIDCRedirectURL
	}
	return strings.TrimRight(c.BaseURL, "/") + "/auth/oidc/callback"
}

// SignOnScopes is OIDC_SCOPES as a list.
func (c Config) SignOnScopes() []string {
	return strings.FieldsFunc(c.OIDCScopes, func(r rune) bool { return r == ' ' || r == ',' })
}

func (c Config) validateOIDC() error {
	if c.OIDCIssuer == "" {
		for name, v := range map[string]string{"OIDC_CLIENT_ID": c.OIDCClientID, "OIDC_CLIENT_SECRET": c.OIDCClientSecret,
			"OIDC_ADMIN_GROUP": c.OIDCAdminGroup, "OIDC_REDIRECT_URL": c.OIDCRedirectURL} {
			if v != "" {
				return fmt.Errorf("%s: set without OIDC_ISSUER, which turns single sign-on on", name)
			}
		}
		return nil
	}
	if u, err := url.Parse(c.OIDCIssuer); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("OIDC_ISSUER: %q is not an http(s) URL", c.OIDCIssuer)
	}
	if c.OIDCClientID == "" {
		return fmt.Errorf("OIDC_CLIENT_ID: required with OIDC_ISSUER")
	}
	if u, err := url.Parse(c.SignOnRedirectURL()); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("OIDC_REDIRECT_URL: %q is not an http(s) URL", c.SignOnRedirectURL())
	}
	if strings.TrimSpace(c.OIDCProviderName) == "" {
		return fmt.Errorf("OIDC_PROVIDER_NAME: must not be empty")
	}
	if strings.TrimSpace(c.OIDCGroupsClaim) == "" {
		return fmt.Errorf("OIDC_GROUPS_CLAIM: must not be empty")
	}
	return nil
}
