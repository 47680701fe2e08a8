package httpapi_test

import (
	"testing"
)

// TestAccountSelfService: password, e-mail and username changes, sessions and deleting the
// account, each refused with a clear 4xx and nothing changed on bad input.
func TestAccountSelfService(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.register("root") // the admin
	alice := b.register("alice")
	b.register("bob")
	other := b.must(200, req{method: "POST", path: "/api/v1/auth/login", body: loginBody("alice")})
	var otherLogin struct {
		RefreshToken string `json:"refresh_token"`
	}
	other.json(t, &otherLogin)

	// Sessions: two log-ins.
	var sessions []struct {
		ID string `json:"id"`
	}
	b.must(200, req{method: "GET", path: "/api/v1/account/sessions", token: alice.token}).json(t, &sessions)
	if len(sessions) != 2 {
		t.Fatalf("%d sessions, want 2", len(sessions))
	}
	b.must(404, req{method: "DELETE", path: "/api/v1/account/sessions/nope", token: alice.token})

	// Password: the current one is required; a change ends the other sessions.
	b.must(403, req{method: "PUT", path: "/api/v1/account/password", token: alice.token,
		body: map[string]string{"current_password": "wrong", "new_password": "a new password"}})
	b.must(200, req{method: "POST", path: "/api/v1/auth/login", body: loginBody("alice")}) // unchanged
	b.must(400, req{method: "PUT", path: "/api/v1/account/password", token: alice.token,
		body: map[string]string{"current_password": "password-alice", "new_password": "short"}})
	var fresh struct {
		Token        string `json:"token"`
		RefreshToken string `json:"refresh_token"`
	}
	b.must(200, req{method: "PUT", path: "/api/v1/account/password", token: alice.token,
		body: map[string]string{"current_password": "password-alice", "new_password": "a new password"}}).json(t, &fresh)
	b.must(401, req{method: "POST", path: "/api/v1/auth/refresh", body: map[string]string{"refresh_token": otherLogin.RefreshToken}})
	b.must(200, req{method: "POST", path: "/api/v1/auth/refresh", body: map[string]string{"refresh_token": fresh.RefreshToken}})
	b.must(401, req{method: "POST", path: "/api/v1/auth/login", body: loginBody("alice")})
	b.must(200, req{method: "POST", path: "/api/v1/auth/login",
		body: map[string]string{"email": "alice@example.test", "password": "a new password"}})

	// E-mail: the current password is required, a taken address refused.
	b.must(403, req{method: "PUT", path: "/api/v1/account/email", token: fresh.Token,
		body: map[string]string{"current_password": "password-alice", "email": "al@example.test"}})
	b.must(400, req{method: "PUT", path: "/api/v1/account/email", token: fresh.Token,
		body: map[string]string{"current_password": "a new password", "email": "BOB@example.test"}})
	b.must(204, req{method: "PUT", path: "/api/v1/account/email", token: fresh.Token,
		body: map[string]string{"current_password": "a new password", "email": "al@example.test"}})
	if got := b.scalar(`SELECT email FROM users WHERE id = ?`, alice.id.String()); got != "al@example.test" {
		t.Fatalf("e-mail %q", got)
	}

	// Username: taken, reserved or the instance actor's is refused; the old one stays reserved.
	before := b.scalar(`SELECT count(*) FROM event_queue`)
	for _, name := range []string{"bob", "BOB", "instance.actor", "instance_actor", "x"} {
		b.must(400, req{method: "PUT", path: "/api/v1/account/username", token: fresh.Token, body: map[string]string{"username": name}})
	}
	if got := b.scalar(`SELECT count(*) FROM event_queue`); got != before {
		t.Fatalf("refused renames wrote events: %s → %s", before, got)
	}
	b.must(200, req{method: "PUT", path: "/api/v1/account/username", token: fresh.Token, body: map[string]string{"username": "Alicia"}})
	if got := b.scalar(`SELECT username FROM users WHERE id = ?`, alice.id.String()); got != "alicia" {
		t.Fatalf("username %q", got)
	}
	if got := b.scalar(`SELECT count(*) FROM event_queue WHERE event_type = 'UserUpdated'`); got != "1" {
		t.Fatalf("%s UserUpdated events, want 1", got)
	}
	b.must(400, req{method: "POST", path: "/api/v1/auth/register", body: registerBody("alice", "")})

	// Delete: the current password is required; the admin alone cannot leave.
	b.must(403, req{method: "DELETE", path: "/api/v1/account", token: fresh.Token, body: map[string]string{"current_password": "nope"}})
	b.must(204, req{method: "DELETE", path: "/api/v1/account", token: fresh.Token, body: map[string]string{"current_password": "a new password"}})
	b.must(401, req{method: "GET", path: "/api/v1/account/sessions", token: fresh.Token})
	if got := b.scalar(`SELECT count(*) FROM event_queue WHERE event_type = 'UserDeleted'`); got != "1" {
		t.Fatalf("%s UserDeleted events, want 1", got)
	}
	b.must(400, req{method: "POST", path: "/api/v1/auth/register", body: registerBody("alicia", "")})
	var root struct {
		Token string `json:"token"`
	}
	b.must(200, req{method: "POST", path: "/api/v1/auth/login", body: loginBody("root")}).json(t, &root)
	b.must(409, req{method: "DELETE", path: "/api/v1/account", token: root.Token, body: map[string]string{"current_password": "password-root"}})
}
