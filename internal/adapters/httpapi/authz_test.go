package httpapi_test

import (
	"testing"
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
