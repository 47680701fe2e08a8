package httpapi_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"
)

// TestAccessTokens: a personal access token works as a bearer token within its scope, is stored
// hashed, shown once, records its last use, survives a password change and goes with its user.
func TestAccessTokens(t *testing.T) {
	t.Parallel()
	b := setup(t)
	root := b.register("root") // the admin
	alice := b.register("alice")

	var made struct {
		ID        string  `json:"id"`
		Token     string  `json:"token"`
		Scope     string  `json:"scope"`
		ExpiresAt *string `json:"expires_at"`
	}
	exp := time.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339)
	b.must(201, req{method: "POST", path: "/api/v1/account/tokens", token: alice.token,
		body: map[string]any{"name": "cron", "scope": "write", "expires_at": exp}}).json(t, &made)
	if !strings.HasPrefix(made.Token, "mdp_") || len(made.Token) < 40 || made.Scope != "write" || made.ExpiresAt == nil || *made.ExpiresAt != exp {
		t.Fatalf("made %+v", made)
	}
	sum := sha256.Sum256([]byte(made.Token))
	if got := b.scalar(`SELECT token_hash FROM access_tokens WHERE id = ?`, made.ID); got != hex.EncodeToString(sum[:]) {
		t.Fatalf("stored %q, want the token's SHA-256", got)
	}
	if n := b.scalar(`SELECT count(*) FROM access_tokens WHERE token_hash LIKE '%' || ? || '%'`, made.Token[4:20]); n != "0" {
		t.Fatal("the token is stored in clear")
	}

	// It works as a bearer token, and its use is recorded.
	b.must(201, req{method: "POST", path: "/api/v1/watchlist", token: made.Token,
		body: map[string]any{"manual_title": "Heat", "manual_release_year": 1995}})
	if b.scalar(`SELECT last_used_at FROM access_tokens WHERE id = ?`, made.ID) == "" {
		t.Fatal("no last use recorded")
	}
	var list []map[string]any
	b.must(200, req{method: "GET", path: "/api/v1/account/tokens", token: alice.token}).json(t, &list)
	if len(list) != 1 || list[0]["name"] != "cron" || list[0]["last_used_at"] == nil {
		t.Fatalf("list %v", list)
	}
	if _, shown := list[0]["token"]; shown {
		t.Fatal("the list shows the token")
	}

	// Bad requests.
	for _, body := range []map[string]any{
		{"name": "", "scope": "read"},
		{"name": "x", "scope": "everything"},
		{"name": "x", "scope": "read", "expires_at": "tomorrow"},
		{"name": "x", "scope": "read", "expires_at": "2001-01-01T00:00:00Z"},
	} {
		b.must(400, req{method: "POST", path: "/api/v1/account/tokens", token: alice.token, body: body}).errorMessage(t)
	}
	b.must(403, req{method: "POST", path: "/api/v1/account/tokens", token: alice.token,
		body: map[string]any{"name": "x", "scope": "admin"}}).errorMessage(t)

	// An admin's admin token reaches the admin routes; the admin's write token does not.
	adminTok := b.accessToken(root, "ops", "admin")
	b.must(201, req{method: "POST", path: "/api/v1/admin/invites", token: adminTok})
	rootWrite := b.accessToken(root, "w", "write")
	if msg := b.must(403, req{method: "POST", path: "/api/v1/admin/invites", token: rootWrite}).errorMessage(t); !strings.Contains(msg, "admin scope") {
		t.Fatalf("message %q", msg)
	}

	// A password change keeps the tokens (they are revoked one by one on /account).
	b.must(200, req{method: "PUT", path: "/api/v1/account/password", token: alice.token,
		body: map[string]string{"current_password": "password-alice", "new_password": "another password"}})
	b.must(200, req{method: "GET", path: "/api/v1/watchlist", token: made.Token})

	// Deleting the account deletes its tokens.
	var fresh struct {
		Token string `json:"token"`
	}
	b.must(200, req{method: "POST", path: "/api/v1/auth/login",
		body: map[string]string{"email": "alice@example.test", "password": "another password"}}).json(t, &fresh)
	b.must(204, req{method: "DELETE", path: "/api/v1/account", token: fresh.Token,
		body: map[string]string{"current_password": "another password"}})
	if n := b.scalar(`SELECT count(*) FROM access_tokens WHERE user_id = ?`, alice.id.String()); n != "0" {
		t.Fatalf("%s tokens outlive their user", n)
	}
	b.must(401, req{method: "GET", path: "/api/v1/watchlist", token: made.Token}).errorMessage(t)
}

// TestAccessTokenFailuresHaveTheirOwnLimit: failed token lookups are limited per address apart
// from the login throttle: a script with a stale token neither locks its owner's password login
// nor is locked by a password guesser.
func TestAccessTokenFailuresHaveTheirOwnLimit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.register("root")
	alice := b.register("alice")
	good := b.accessToken(alice, "cron", "read")

	// A password guesser throttles alice's log-in; her token still works.
	for range 8 {
		b.do(req{method: "POST", path: "/api/v1/auth/login", body: map[string]string{"email": "alice@example.test", "password": "guess"}})
	}
	b.must(429, req{method: "POST", path: "/api/v1/auth/login", body: loginBody("alice")})
	b.must(200, req{method: "GET", path: "/api/v1/watchlist", token: good})

	// A stale token fails until the address's budget is spent, then is refused with a wait.
	b2 := setup(t)
	b2.register("root")
	bob := b2.register("bob")
	stale := "mdp_" + strings.Repeat("x", 43)
	for range 20 {
		b2.must(401, req{method: "GET", path: "/api/v1/watchlist", token: stale}).errorMessage(t)
	}
	resp := b2.must(429, req{method: "GET", path: "/api/v1/watchlist", token: stale})
	if resp.header.Get("Retry-After") == "" || !strings.Contains(resp.errorMessage(t), "access token") {
		t.Fatalf("429 without a wait or a reason: %s", resp.body)
	}
	// bob's password log-in is not touched.
	b2.must(200, req{method: "POST", path: "/api/v1/auth/login", body: loginBody("bob")})
	b2.must(200, req{method: "GET", path: "/api/v1/watchlist", token: bob.token})
}
