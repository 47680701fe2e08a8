package httpapi_test

import (
	"strings"
	"testing"
)

// TestReusedRefreshTokenRevokesItsFamily: replaying a rotated refresh token gets 401 and also
// revokes the token that replaced it (and every later one), while another login's tokens keep
// working; logout ends the whole family too.
func TestReusedRefreshTokenRevokesItsFamily(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register("alice")
	refresh := func(tok string) response {
		return b.do(req{method: "POST", path: "/api/v1/auth/refresh", body: map[string]string{"refresh_token": tok}})
	}
	var other struct {
		RefreshToken string `json:"refresh_token"`
	}
	b.must(200, req{method: "POST", path: "/api/v1/auth/login",
		body: map[string]string{"email": "alice@example.test", "password": "password-alice"}}).json(t, &other)

	var r1, r2 struct {
		RefreshToken string `json:"refresh_token"`
	}
	if r := refresh(a.refresh); r.status != 200 {
		t.Fatalf("first rotation: %d %s", r.status, r.body)
	} else {
		r.json(t, &r1)
	}
	if r := refresh(r1.RefreshToken); r.status != 200 {
		t.Fatalf("second rotation: %d %s", r.status, r.body)
	} else {
		r.json(t, &r2)
	}
	// The first token again: a replay (the thief or the owner was second).
	if r := refresh(a.refresh); r.status != 401 || !strings.Contains(r.errorMessage(t), "revoked") {
		t.Fatalf("replayed token: %d %s, want 401 saying the sessions are revoked", r.status, r.body)
	}
	if r := refresh(r2.RefreshToken); r.status != 401 {
		t.Errorf("the live successor of a replayed token: %d %s, want 401 (family revoked)", r.status, r.body)
	}
	// Another login of the same user is another family.
	var o1 struct {
		RefreshToken string `json:"refresh_token"`
	}
	if r := refresh(other.RefreshToken); r.status != 200 {
		t.Fatalf("another login's token: %d %s, want 200", r.status, r.body)
	} else {
		r.json(t, &o1)
	}
	b.must(204, req{method: "POST", path: "/api/v1/auth/logout", body: map[string]string{"refresh_token": o1.RefreshToken}})
	if got := b.scalar(`SELECT count(*) FROM refresh_sessions`); got != "0" {
		t.Errorf("%s session rows after the reuse and the logout, want 0", got)
	}
}
