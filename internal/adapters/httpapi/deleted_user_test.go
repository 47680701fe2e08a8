package httpapi_test

import "testing"

// TestDeletedUsersTokenIs401: an access token that is still valid but whose user is gone gets
// 401 on reads and writes (not a 200, not a foreign-key 500).
func TestDeletedUsersTokenIs401(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register("alice")
	b.exec(`DELETE FROM users WHERE id = ?`, a.id.String())
	b.must(401, req{method: "GET", path: "/api/v1/watchlist", token: a.token}).errorMessage(t)
	b.must(401, req{method: "POST", path: "/api/v1/reviews", token: a.token, body: map[string]any{
		"manual_title": "Heat", "manual_release_year": 1995, "rating": 4, "watched_at": "2024-03-01",
	}}).errorMessage(t)
}
