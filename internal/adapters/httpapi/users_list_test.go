package httpapi_test

import (
	"strings"
	"testing"
)

func TestUsersList(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob := b.register("alice"), b.register("bob") // alice is the admin
	b.logReview(bob, "Heat", 4, "2024-01-01")
	b.logReview(bob, "Ronin", 5, "2024-01-02")
	b.must(200, req{method: "POST", path: "/api/v1/social/follow", token: alice.token, body: map[string]any{"handle": "bob"}})
	b.must(200, req{method: "POST", path: "/api/v1/social/followers/accept", token: bob.token,
		body: map[string]any{"actor_url": "http://diary.test/users/" + alice.id.String()}})
	b.must(204, multipartReq(t, bob.token, part{name: "display_name", value: "Bob B."}))

	type user struct {
		ID             string   `json:"id"`
		Email          *string  `json:"email"`
		Username       string   `json:"username"`
		DisplayName    *string  `json:"display_name"`
		TotalMovies    int      `json:"total_movies"`
		AvgRating      *float64 `json:"avg_rating"`
		FollowingCount int      `json:"following_count"`
		FollowersCount int      `json:"followers_count"`
	}
	list := func(token string) ([]user, string) {
		resp := b.must(200, req{method: "GET", path: "/api/v1/users", token: token})
		var out struct{ Users []user }
		resp.json(t, &out)
		return out.Users, string(resp.body)
	}

	for _, c := range []struct {
		name, token string
	}{{"anonymous", ""}, {"a standard user", bob.token}} {
		users, raw := list(c.token)
		if strings.Contains(raw, "@example.test") || strings.Contains(raw, `"email"`) {
			t.Errorf("%s sees e-mails: %s", c.name, raw)
		}
		if len(users) != 2 || users[0].Username != "alice" || users[1].Username != "bob" {
			t.Fatalf("%s: users = %+v", c.name, users)
		}
		a, u := users[0], users[1]
		if a.ID != alice.id.String() || a.TotalMovies != 0 || a.AvgRating != nil || a.FollowingCount != 1 {
			t.Errorf("%s: alice = %+v", c.name, a)
		}
		if u.TotalMovies != 2 || u.AvgRating == nil || *u.AvgRating != 4.5 || u.FollowersCount != 1 || str(u.DisplayName) != "Bob B." {
			t.Errorf("%s: bob = %+v", c.name, u)
		}
	}
	users, _ := list(alice.token)
	if len(users) != 2 || str(users[0].Email) != "alice@example.test" || str(users[1].Email) != "bob@example.test" {
		t.Errorf("the admin's list = %+v, want e-mails", users)
	}
	if strings.Contains(string(b.must(200, req{method: "GET", path: "/api/v1/users", token: alice.token}).body), "password") {
		t.Error("the list shows password hashes")
	}
	b.must(401, req{method: "GET", path: "/api/v1/users", token: "not-a-token"}).errorMessage(t)
	b.must(401, req{method: "GET", path: "/api/v1/users", header: map[string]string{"Authorization": "Basic eA=="}}).errorMessage(t)
}
