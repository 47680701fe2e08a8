package httpapi_test

import (
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
)

// totpCode is the authenticator app's code of secret at at.
func totpCode(t testing.TB, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCode(secret, at)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// accessToken makes a personal access token of scope for a and returns its secret.
func (b *bundle) accessToken(a account, name, scope string) string {
	b.t.Helper()
	var out struct {
		Token string `json:"token"`
	}
	b.must(201, req{method: "POST", path: "/api/v1/account/tokens", token: a.token,
		body: map[string]any{"name": name, "scope": scope}}).json(b.t, &out)
	return out.Token
}

// enrol turns two factors on for a (password "password-<name>") and returns the TOTP secret and
// the recovery codes; the code spent is of the current time step.
func (b *bundle) enrol(a account) (secret string, recovery []string) {
	b.t.Helper()
	var e struct {
		Secret string `json:"secret"`
		URI    string `json:"otpauth_uri"`
	}
	b.must(200, req{method: "POST", path: "/api/v1/account/totp", token: a.token,
		body: map[string]string{"current_password": "password-" + a.username}}).json(b.t, &e)
	var codes struct {
		RecoveryCodes []string `json:"recovery_codes"`
	}
	b.must(200, req{method: "POST", path: "/api/v1/account/totp/confirm", token: a.token,
		body: map[string]string{"code": totpCode(b.t, e.Secret, time.Now())}}).json(b.t, &codes)
	return e.Secret, codes.RecoveryCodes
}

// challenge logs a in with two factors on and returns the password step's challenge.
func (b *bundle) challenge(a account) string {
	b.t.Helper()
	var c struct {
		MFARequired bool   `json:"mfa_required"`
		Challenge   string `json:"challenge"`
	}
	b.must(401, req{method: "POST", path: "/api/v1/auth/login", body: loginBody(a.username)}).json(b.t, &c)
	if !c.MFARequired || c.Challenge == "" {
		b.t.Fatalf("login of %s: no challenge", a.username)
	}
	return c.Challenge
}
