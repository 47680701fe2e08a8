package config

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var oidcVars = []string{"OIDC_ISSUER", "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET", "OIDC_CLIENT_SECRET_FILE", "OIDC_REDIRECT_URL",
	"OIDC_PROVIDER_NAME", "OIDC_SCOPES", "OIDC_LINK_BY_EMAIL", "OIDC_AUTO_REGISTER", "OIDC_ADMIN_GROUP", "OIDC_GROUPS_CLAIM"}

func clearOIDCEnv(t *testing.T) {
	clearEnv(t)
	for _, v := range oidcVars {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
}

// TestOIDCSettings: off by default; on with an issuer and a client, the redirect URL derived
// from BASE_URL, the secret read from its file and masked by Print.
func TestOIDCSettings(t *testing.T) {
	clearOIDCEnv(t)
	c, err := Load()
	if err != nil || c.SignOnEnabled() || c.OIDCLinkByEmail || !c.OIDCAutoRegister || c.OIDCGroupsClaim != "groups" {
		t.Fatalf("defaults: %+v, %v", c.OIDC, err)
	}
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("client-secret-value\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BASE_URL", "https://diary.example.org/")
	t.Setenv("OIDC_ISSUER", "https://id.example.org/realms/x")
	t.Setenv("OIDC_CLIENT_ID", "moviesdiary")
	t.Setenv("OIDC_CLIENT_SECRET_FILE", secret)
	t.Setenv("OIDC_SCOPES", "openid, email profile groups")
	c, err = Load()
	if err != nil {
		t.Fatal(err)
	}
	if !c.SignOnEnabled() || c.OIDCClientSecret != "client-secret-value" ||
		c.SignOnRedirectURL() != "https://diary.example.org/auth/oidc/callback" ||
		!slices.Equal(c.SignOnScopes(), []string{"openid", "email", "profile", "groups"}) {
		t.Fatalf("settings %+v, redirect %s, scopes %v", c.OIDC, c.SignOnRedirectURL(), c.SignOnScopes())
	}
	var out bytes.Buffer
	if err := c.Print(&out); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "client-secret-value") || !strings.Contains(out.String(), "OIDC_CLIENT_SECRET="+Masked) {
		t.Fatalf("server config shows the client secret:\n%s", out.String())
	}
}

func TestOIDCBadValues(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"OIDC_CLIENT_ID": "x"}, "OIDC_CLIENT_ID: set without OIDC_ISSUER"},
		{map[string]string{"OIDC_ISSUER": "id.example.org"}, "OIDC_ISSUER"},
		{map[string]string{"OIDC_ISSUER": "https://id.example.org"}, "OIDC_CLIENT_ID: required"},
		{map[string]string{"OIDC_ISSUER": "https://id.example.org", "OIDC_CLIENT_ID": "x", "OIDC_REDIRECT_URL": "/cb"}, "OIDC_REDIRECT_URL"},
		{map[string]string{"OIDC_ISSUER": "https://id.example.org", "OIDC_CLIENT_ID": "x", "OIDC_LINK_BY_EMAIL": "maybe"}, "OIDC_LINK_BY_EMAIL"},
	} {
		clearOIDCEnv(t)
		for k, v := range tc.env {
			t.Setenv(k, v)
		}
		if _, err := Load(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v; want an error naming %s", tc.env, err, tc.want)
		}
	}
}
