package httpapi_test

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTwoFactorLogin: enrolment needs the password and a first code; then a log-in is two steps
// (a challenge, then a code or a recovery code), and users without two factors log in as before.
func TestTwoFactorLogin(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.register("root")
	alice, bob := b.register("alice"), b.register("bob")

	// A user without two factors gets the original response, nothing more.
	var plain map[string]any
	b.must(200, req{method: "POST", path: "/api/v1/auth/login", body: loginBody("bob")}).json(t, &plain)
	if keys := slices.Sorted(maps.Keys(plain)); !slices.Equal(keys, []string{"email", "expires_at", "refresh_token", "role", "token", "user_id"}) {
		t.Fatalf("login keys %v", keys)
	}
	_ = bob

	// Enrolment: the password first, then a code; a wrong one turns nothing on.
	b.must(403, req{method: "POST", path: "/api/v1/account/totp", token: alice.token, body: map[string]string{"current_password": "nope"}})
	b.must(404, req{method: "POST", path: "/api/v1/account/totp/confirm", token: alice.token, body: map[string]string{"code": "123456"}})
	var e struct {
		Secret string `json:"secret"`
		URI    string `json:"otpauth_uri"`
	}
	b.must(200, req{method: "POST", path: "/api/v1/account/totp", token: alice.token,
		body: map[string]string{"current_password": "password-alice"}}).json(t, &e)
	if !strings.HasPrefix(e.URI, "otpauth://totp/") || !strings.Contains(e.URI, "issuer=diary.test") || !strings.Contains(e.URI, e.Secret) {
		t.Fatalf("enrolment %+v", e)
	}
	wrong := totpCode(t, e.Secret, time.Now().Add(-10*time.Minute))
	b.must(403, req{method: "POST", path: "/api/v1/account/totp/confirm", token: alice.token, body: map[string]string{"code": wrong}}).errorMessage(t)
	b.must(200, req{method: "POST", path: "/api/v1/auth/login", body: loginBody("alice")}) // still one step
	var codes struct {
		RecoveryCodes []string `json:"recovery_codes"`
	}
	b.must(200, req{method: "POST", path: "/api/v1/account/totp/confirm", token: alice.token,
		body: map[string]string{"code": totpCode(t, e.Secret, time.Now())}}).json(t, &codes)
	if len(codes.RecoveryCodes) != 10 {
		t.Fatalf("%d recovery codes", len(codes.RecoveryCodes))
	}
	if n := b.scalar(`SELECT count(*) FROM recovery_codes WHERE code_hash = ? OR code_hash = ?`,
		codes.RecoveryCodes[0], strings.ReplaceAll(codes.RecoveryCodes[0], "-", "")); n != "0" {
		t.Fatal("a recovery code is stored in clear")
	}
	var st map[string]any
	b.must(200, req{method: "GET", path: "/api/v1/account/totp", token: alice.token}).json(t, &st)
	if st["enabled"] != true || st["recovery_codes_left"] != 10.0 || st["required"] != false {
		t.Fatalf("status %v", st)
	}
	b.must(409, req{method: "POST", path: "/api/v1/account/totp", token: alice.token, body: map[string]string{"current_password": "password-alice"}})

	// The password step answers a challenge in the error envelope, which is no access token.
	resp := b.must(401, req{method: "POST", path: "/api/v1/auth/login", body: loginBody("alice")})
	var c map[string]any
	resp.json(t, &c)
	if c["mfa_required"] != true || c["error"] == "" || c["token"] != nil || c["challenge_expires_at"] == nil {
		t.Fatalf("challenge %v", c)
	}
	challenge := c["challenge"].(string)
	b.must(401, req{method: "GET", path: "/api/v1/watchlist", token: challenge})

	// The code step: a code of the next step (the one of the confirmation is spent).
	var sess struct {
		Token        string `json:"token"`
		RefreshToken string `json:"refresh_token"`
	}
	b.must(200, req{method: "POST", path: "/api/v1/auth/login/totp",
		body: map[string]string{"challenge": challenge, "code": totpCode(t, e.Secret, time.Now().Add(30*time.Second))}}).json(t, &sess)
	b.must(200, req{method: "GET", path: "/api/v1/watchlist", token: sess.Token})
	// A recovery code works once, typed in capitals without dashes too.
	rc := strings.ToUpper(strings.ReplaceAll(codes.RecoveryCodes[3], "-", " "))
	b.must(200, req{method: "POST", path: "/api/v1/auth/login/totp", body: map[string]string{"challenge": b.challenge(alice), "code": rc}})
	b.must(200, req{method: "GET", path: "/api/v1/account/totp", token: alice.token}).json(t, &st)
	if st["recovery_codes_left"] != 9.0 {
		t.Fatalf("status %v after a recovery code", st)
	}

	// New recovery codes replace the old ones.
	var again struct {
		RecoveryCodes []string `json:"recovery_codes"`
	}
	b.must(200, req{method: "POST", path: "/api/v1/account/totp/recovery-codes", token: alice.token,
		body: map[string]string{"current_password": "password-alice"}}).json(t, &again)
	b.must(401, req{method: "POST", path: "/api/v1/auth/login/totp", body: map[string]string{"challenge": b.challenge(alice), "code": codes.RecoveryCodes[5]}})

	// Off: the password or a code; then the log-in is one step again.
	b.must(400, req{method: "DELETE", path: "/api/v1/account/totp", token: alice.token, body: map[string]string{}})
	b.must(403, req{method: "DELETE", path: "/api/v1/account/totp", token: alice.token, body: map[string]string{"current_password": "nope"}})
	b.must(204, req{method: "DELETE", path: "/api/v1/account/totp", token: alice.token, body: map[string]string{"code": again.RecoveryCodes[0]}})
	b.must(200, req{method: "POST", path: "/api/v1/auth/login", body: loginBody("alice")})
	if n := b.scalar(`SELECT count(*) FROM recovery_codes`); n != "0" {
		t.Fatalf("%s recovery codes left after turning two factors off", n)
	}
}

// TestRequireTwoFactor: with REQUIRE_TWO_FACTOR a user without two factors may log in and turn
// them on, and nothing else until they do.
func TestRequireTwoFactor(t *testing.T) {
	t.Parallel()
	b := setup(t, options{requireTwoFactor: true})
	alice := b.register("alice")
	msg := b.must(403, req{method: "GET", path: "/api/v1/watchlist", token: alice.token}).errorMessage(t)
	if !strings.Contains(msg, "two-factor") {
		t.Fatalf("message %q", msg)
	}
	b.must(403, req{method: "POST", path: "/api/v1/account/tokens", token: alice.token, body: map[string]any{"name": "x", "scope": "read"}})
	var st map[string]any
	b.must(200, req{method: "GET", path: "/api/v1/account/totp", token: alice.token}).json(t, &st)
	if st["required"] != true || st["enabled"] != false {
		t.Fatalf("status %v", st)
	}
	b.enrol(alice)
	b.must(200, req{method: "GET", path: "/api/v1/watchlist", token: alice.token})
	var doc json.RawMessage
	b.must(200, req{method: "GET", path: "/openapi.json"}).json(t, &doc)
	if !strings.Contains(string(doc), "mfa_required") {
		t.Fatal("the OpenAPI document does not describe the challenge")
	}
}
