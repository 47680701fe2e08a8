package httpapi_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

func TestAuthFlow(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var first, second struct {
		Role string `json:"role"`
	}
	b.must(201, req{method: "POST", path: "/api/v1/auth/register",
		body: map[string]string{"email": "a@example.test", "username": "Alice", "password": "password-a"}}).json(t, &first)
	b.must(201, req{method: "POST", path: "/api/v1/auth/register",
		body: map[string]string{"email": "b@example.test", "username": "bob", "password": "password-b"}}).json(t, &second)
	if first.Role != "admin" || second.Role != "standard" {
		t.Errorf("roles = %q, %q; want the first user admin, the second standard", first.Role, second.Role)
	}
	for name, body := range map[string]map[string]string{
		"taken e-mail, other case": {"email": "A@example.test", "username": "carol", "password": "password-c"},
		"taken username":           {"email": "c@example.test", "username": "alice", "password": "password-c"},
		"bad e-mail":               {"email": "not-an-email", "username": "carol", "password": "password-c"},
		"short password":           {"email": "c@example.test", "username": "carol", "password": "short"},
		"bad username":             {"email": "c@example.test", "username": "c", "password": "password-c"},
	} {
		if r := b.do(req{method: "POST", path: "/api/v1/auth/register", body: body}); r.status != 400 {
			t.Errorf("register with %s = %d %s, want 400", name, r.status, r.body)
		} else {
			r.errorMessage(t)
		}
	}

	bad := b.must(401, req{method: "POST", path: "/api/v1/auth/login", body: map[string]string{"email": "a@example.test", "password": "wrong-password"}})
	unknown := b.must(401, req{method: "POST", path: "/api/v1/auth/login", body: map[string]string{"email": "x@example.test", "password": "password-a"}})
	if bad.errorMessage(t) != unknown.errorMessage(t) {
		t.Error("a wrong password and an unknown e-mail must answer alike")
	}

	var login struct {
		Token        string    `json:"token"`
		RefreshToken string    `json:"refresh_token"`
		Email        string    `json:"email"`
		Role         string    `json:"role"`
		ExpiresAt    string    `json:"expires_at"`
		UserID       uuid.UUID `json:"user_id"`
	}
	b.must(200, req{method: "POST", path: "/api/v1/auth/login",
		body: map[string]string{"email": "a@example.test", "password": "password-a"}}).json(t, &login)
	if login.Role != "admin" || login.Email != "a@example.test" || login.ExpiresAt == "" || login.UserID == uuid.Nil {
		t.Errorf("login response %+v lacks fields", login)
	}
	if got := b.scalar(`SELECT count(*) FROM refresh_sessions WHERE token_hash = ?`, login.RefreshToken); got != "0" {
		t.Error("the refresh token is stored in plain text")
	}
	b.must(200, req{method: "GET", path: "/api/v1/settings", token: login.Token})

	var rotated struct {
		Token        string `json:"token"`
		RefreshToken string `json:"refresh_token"`
	}
	b.must(200, req{method: "POST", path: "/api/v1/auth/refresh", body: map[string]string{"refresh_token": login.RefreshToken}}).json(t, &rotated)
	if rotated.RefreshToken == login.RefreshToken || rotated.Token == "" {
		t.Fatal("refresh did not rotate the token")
	}
	b.must(401, req{method: "POST", path: "/api/v1/auth/refresh", body: map[string]string{"refresh_token": login.RefreshToken}}).errorMessage(t)
	b.must(204, req{method: "POST", path: "/api/v1/auth/logout", body: map[string]string{"refresh_token": rotated.RefreshToken}})
	b.must(401, req{method: "POST", path: "/api/v1/auth/refresh", body: map[string]string{"refresh_token": rotated.RefreshToken}})
	b.must(204, req{method: "POST", path: "/api/v1/auth/logout", body: map[string]string{"refresh_token": "never issued"}})
}

func TestExpiredRefreshTokenIsRejectedAndDeleted(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register("alice")
	if _, err := b.db.Exec(`UPDATE refresh_sessions SET expires_at = 0`); err != nil {
		t.Fatal(err)
	}
	msg := b.must(401, req{method: "POST", path: "/api/v1/auth/refresh", body: map[string]string{"refresh_token": a.refresh}}).errorMessage(t)
	if !strings.Contains(msg, "expired") {
		t.Errorf("message %q does not say the token expired", msg)
	}
	if got := b.scalar(`SELECT count(*) FROM refresh_sessions`); got != "0" {
		t.Errorf("expired session rows = %s, want it deleted", got)
	}
}

func TestRegistrationCanBeDisabled(t *testing.T) {
	t.Parallel()
	b := setup(t, options{disallowRegister: true})
	b.must(401, req{method: "POST", path: "/api/v1/auth/register",
		body: map[string]string{"email": "a@example.test", "username": "alice", "password": "password-a"}}).errorMessage(t)
}

func TestAuthRoutesAreRateLimitedPerIP(t *testing.T) {
	t.Parallel()
	b := setup(t, options{authRateLimit: 3})
	body := map[string]string{"email": "nobody@example.test", "password": "password-x"}
	for range 3 {
		b.must(401, req{method: "POST", path: "/api/v1/auth/login", body: body})
	}
	b.must(429, req{method: "POST", path: "/api/v1/auth/login", body: body}).errorMessage(t)
	// Only the auth routes spend the budget.
	b.must(200, req{method: "GET", path: "/api/v1/diary"})
}

func TestBadTokensAre401(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register("alice")
	parts := strings.Split(a.token, ".")
	otherSub := base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"` + uuid.NewString() + `","exp":9999999999}`))
	none, err := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"sub": a.id.String(), "exp": 9999999999}).
		SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		t.Fatal(err)
	}
	for name, h := range map[string]string{
		"missing":        "",
		"not bearer":     "Token " + a.token,
		"lowercase":      "bearer " + a.token,
		"tampered":       "Bearer " + parts[0] + "." + otherSub + "." + parts[2],
		"expired":        "Bearer " + expiredToken(t, a.id),
		"alg none":       "Bearer " + none,
		"wrong secret":   "Bearer " + forged(t, a.id),
		"garbage":        "Bearer x.y.z",
		"bearer nothing": "Bearer ",
	} {
		r := b.do(req{method: "GET", path: "/api/v1/settings", header: map[string]string{"Authorization": h}})
		if r.status != 401 {
			t.Errorf("%s token: status %d, want 401", name, r.status)
			continue
		}
		r.errorMessage(t)
	}
}

func forged(t *testing.T, id uuid.UUID) string {
	t.Helper()
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": id.String(), "exp": 9999999999}).
		SignedString([]byte("some other secret of enough length"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
