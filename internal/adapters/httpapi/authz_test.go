package httpapi_test

import (
	"strings"
	"testing"
	"time"
)

// TestOthersCannotTouchWhatIsNotTheirs: a second user can neither edit nor delete a review,
// remove a watchlist entry, accept a follower, nor see settings that are not theirs.
func TestOthersCannotTouchWhatIsNotTheirs(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob, carol := b.register("alice"), b.register("bob"), b.register("carol")
	id, movie := b.logReview(alice, "Heat", 4, "2024-03-01")
	path := "/api/v1/reviews/" + id.String()

	b.must(403, req{method: "PATCH", path: path, token: bob.token, body: map[string]any{"rating": 1}}).errorMessage(t)
	b.must(403, req{method: "DELETE", path: path, token: bob.token}).errorMessage(t)
	if got := b.scalar(`SELECT rating FROM reviews`); got != "4" {
		t.Errorf("rating after another user's edit = %s, want 4", got)
	}

	b.must(201, req{method: "POST", path: "/api/v1/watchlist", token: alice.token, body: map[string]any{"movie_id": movie}})
	b.must(404, req{method: "DELETE", path: "/api/v1/watchlist/" + movie.String(), token: bob.token}).errorMessage(t)
	if got := b.scalar(`SELECT count(*) FROM watchlist`); got != "1" {
		t.Errorf("watchlist entries after another user's delete = %s, want 1", got)
	}

	// carol asks to follow alice; bob cannot accept it on alice's behalf.
	b.must(200, req{method: "POST", path: "/api/v1/social/follow", token: carol.token, body: map[string]any{"handle": "alice"}})
	b.must(404, req{method: "POST", path: "/api/v1/social/followers/accept", token: bob.token,
		body: map[string]any{"actor_url": "http://diary.test/users/" + carol.id.String()}}).errorMessage(t)
	if got := b.scalar(`SELECT status FROM follows`); got != "pending" {
		t.Errorf("follow status after another user's accept = %s, want pending", got)
	}

	b.must(204, req{method: "PUT", path: "/api/v1/settings", token: alice.token,
		body: map[string]any{"federate_goals": false, "federate_reviews": false, "federate_watchlist": false}})
	var got map[string]bool
	b.must(200, req{method: "GET", path: "/api/v1/settings", token: bob.token}).json(t, &got)
	if !got["federate_reviews"] || !got["federate_goals"] || !got["federate_watchlist"] {
		t.Errorf("bob's settings = %v: they show alice's", got)
	}

	// Wrap-ups: only an admin generates or deletes; another user's is not visible.
	b.must(403, req{method: "POST", path: "/api/v1/wrapups/generate", token: bob.token,
		body: map[string]any{"start_date": "2024-01-01", "end_date": "2024-12-31"}}).errorMessage(t)
	var w struct{ ID string }
	b.must(200, req{method: "POST", path: "/api/v1/wrapups/generate", token: alice.token,
		body: map[string]any{"start_date": "2024-01-01", "end_date": "2024-12-31", "user_id": carol.id}}).json(t, &w)
	b.must(404, req{method: "GET", path: "/api/v1/wrapups/" + w.ID, token: bob.token})
	b.must(200, req{method: "GET", path: "/api/v1/wrapups/" + w.ID, token: carol.token})
	b.must(403, req{method: "DELETE", path: "/api/v1/wrapups/" + w.ID, token: carol.token})
}

// TestFederatedReviewsCannotBeEdited: a review that came over federation is read-only here.
func TestFederatedReviewsCannotBeEdited(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	id, _ := b.logReview(alice, "Heat", 4, "2024-03-01")
	if _, err := b.db.Exec(`UPDATE reviews SET remote_actor_url = 'https://elsewhere.test/users/x'`); err != nil {
		t.Fatal(err)
	}
	b.must(403, req{method: "PATCH", path: "/api/v1/reviews/" + id.String(), token: alice.token, body: map[string]any{"rating": 1}})
	b.must(403, req{method: "DELETE", path: "/api/v1/reviews/" + id.String(), token: alice.token})
}

// TestCredentialAbuse: a personal access token beyond its scope, revoked or expired; a TOTP code
// wrong, replayed or guessed too often; a recovery code reused: each a clear 4xx with nothing
// changed.
func TestCredentialAbuse(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.register("root")
	alice, bob := b.register("alice"), b.register("bob")

	// Scope: read only reads; write no admin route; no token the account's routes.
	read := b.accessToken(alice, "reader", "read")
	msg := b.must(403, req{method: "POST", path: "/api/v1/reviews", token: read, body: map[string]any{
		"manual_title": "Heat", "manual_release_year": 1995, "rating": 4, "watched_at": "2024-03-01"}}).errorMessage(t)
	if !strings.Contains(msg, "scope is read") || !strings.Contains(msg, "write scope") {
		t.Fatalf("message %q", msg)
	}
	b.must(403, req{method: "DELETE", path: "/api/v1/watchlist/" + alice.id.String(), token: read}).errorMessage(t)
	b.must(200, req{method: "GET", path: "/api/v1/watchlist", token: read})
	write := b.accessToken(alice, "writer", "write")
	b.must(403, req{method: "POST", path: "/api/v1/admin/reindex-search", token: write}).errorMessage(t)
	b.must(403, req{method: "GET", path: "/api/v1/admin/blocked-domains", token: write}).errorMessage(t)
	for _, r := range []req{
		{method: "POST", path: "/api/v1/account/tokens", token: write, body: map[string]any{"name": "more", "scope": "write"}},
		{method: "GET", path: "/api/v1/account/tokens", token: read},
		{method: "PUT", path: "/api/v1/account/password", token: write, body: map[string]string{"current_password": "password-alice", "new_password": "stolen password"}},
		{method: "DELETE", path: "/api/v1/account", token: write, body: map[string]string{"current_password": "password-alice"}},
		{method: "POST", path: "/api/v1/account/totp", token: write, body: map[string]string{"current_password": "password-alice"}},
	} {
		if msg := b.must(403, r).errorMessage(t); !strings.Contains(msg, "log in with your password") {
			t.Fatalf("%s %s: %q", r.method, r.path, msg)
		}
	}
	if n := b.scalar(`SELECT count(*) FROM reviews`); n != "0" {
		t.Fatalf("%s reviews written beyond the scope", n)
	}
	if n := b.scalar(`SELECT count(*) FROM access_tokens`); n != "2" {
		t.Fatalf("%s tokens, want 2", n)
	}
	b.must(200, req{method: "POST", path: "/api/v1/auth/login", body: loginBody("alice")}) // the password is unchanged

	// Revoked and expired tokens; another user cannot revoke one.
	var list []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	b.must(200, req{method: "GET", path: "/api/v1/account/tokens", token: alice.token}).json(t, &list)
	b.must(404, req{method: "DELETE", path: "/api/v1/account/tokens/" + list[0].ID, token: bob.token}).errorMessage(t)
	b.must(400, req{method: "DELETE", path: "/api/v1/account/tokens/nope", token: alice.token}).errorMessage(t)
	for _, x := range list {
		if x.Name == "reader" {
			b.must(204, req{method: "DELETE", path: "/api/v1/account/tokens/" + x.ID, token: alice.token})
		}
	}
	if msg := b.must(401, req{method: "GET", path: "/api/v1/watchlist", token: read}).errorMessage(t); !strings.Contains(msg, "revoked") {
		t.Fatalf("revoked: %q", msg)
	}
	if _, err := b.db.Exec(`UPDATE access_tokens SET expires_at = 1`); err != nil {
		t.Fatal(err)
	}
	if msg := b.must(401, req{method: "GET", path: "/api/v1/watchlist", token: write}).errorMessage(t); !strings.Contains(msg, "expired") {
		t.Fatalf("expired: %q", msg)
	}

	// Codes: wrong, replayed, a recovery code reused, then too many guesses.
	secret, recovery := b.enrol(bob)
	b.must(401, req{method: "POST", path: "/api/v1/auth/login/totp", body: map[string]string{"challenge": "forged", "code": "123456"}}).errorMessage(t)
	challenge := b.challenge(bob)
	b.must(401, req{method: "POST", path: "/api/v1/auth/login/totp", body: map[string]string{"challenge": challenge,
		"code": totpCode(t, secret, time.Now().Add(-5*time.Minute))}}).errorMessage(t)
	used := totpCode(t, secret, time.Now()) // spent by the enrolment
	if msg := b.must(401, req{method: "POST", path: "/api/v1/auth/login/totp", body: map[string]string{"challenge": challenge, "code": used}}).errorMessage(t); !strings.Contains(msg, "already used") {
		t.Fatalf("replay: %q", msg)
	}
	b.must(200, req{method: "POST", path: "/api/v1/auth/login/totp", body: map[string]string{"challenge": challenge, "code": recovery[0]}})
	if msg := b.must(401, req{method: "POST", path: "/api/v1/auth/login/totp", body: map[string]string{"challenge": challenge, "code": recovery[0]}}).errorMessage(t); msg != "Invalid two-factor code" {
		t.Fatalf("reused recovery code: %q", msg)
	}
	sessions := b.scalar(`SELECT count(*) FROM refresh_sessions WHERE user_id = ?`, bob.id.String())
	var throttled bool
	for range 8 {
		r := b.do(req{method: "POST", path: "/api/v1/auth/login/totp", body: map[string]string{"challenge": challenge, "code": "000000"}})
		if r.status == 429 {
			throttled = r.header.Get("Retry-After") != ""
			break
		}
		if r.status != 401 {
			t.Fatalf("a guess = %d %s", r.status, r.body)
		}
	}
	if !throttled {
		t.Fatal("eight wrong codes in a row were never throttled")
	}
	if got := b.scalar(`SELECT count(*) FROM refresh_sessions WHERE user_id = ?`, bob.id.String()); got != sessions {
		t.Fatalf("refused codes opened sessions: %s → %s", sessions, got)
	}
}
