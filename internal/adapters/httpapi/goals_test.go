package httpapi_test

import (
	"slices"
	"testing"

	"github.com/google/uuid"
)

// goalJSON is the original GoalDto.
type goalJSON struct {
	Year         int     `json:"year"`
	TargetCount  int     `json:"target_count"`
	CurrentCount int     `json:"current_count"`
	Percentage   float64 `json:"percentage"`
	IsComplete   bool    `json:"is_complete"`
	GoalType     string  `json:"goal_type"`
}

func TestGoals(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob := b.register("alice"), b.register("bob")
	for i, day := range []string{"2024-01-05", "2024-06-01T20:30", "2024-12-31T23:59:59", "2023-12-31", "2025-01-01"} {
		b.logReview(alice, "Film "+string(rune('A'+i)), 4, day)
	}
	b.logReview(bob, "Film Z", 3, "2024-03-01")

	since := b.lastEvent()
	var g goalJSON
	b.must(200, req{method: "POST", path: "/api/v1/goals", token: alice.token, body: map[string]any{"year": 2024, "target_count": 2}}).json(t, &g)
	if g != (goalJSON{Year: 2024, TargetCount: 2, CurrentCount: 3, Percentage: 100, IsComplete: true, GoalType: "movies"}) {
		t.Errorf("created goal = %+v", g)
	}
	created := b.eventPayloads(since, "GoalCreated")
	if len(created) != 1 || created[0]["user_id"] != alice.id.String() || created[0]["year"] != 2024.0 ||
		created[0]["target_count"] != 2.0 || created[0]["goal_id"] == nil {
		t.Errorf("GoalCreated payloads = %v", created)
	}
	b.must(200, req{method: "POST", path: "/api/v1/goals", token: alice.token, body: map[string]any{"year": 2023, "target_count": 4}}).json(t, &g)
	if g.CurrentCount != 1 || g.Percentage != 25 || g.IsComplete {
		t.Errorf("2023 goal = %+v", g)
	}
	if msg := b.must(400, req{method: "POST", path: "/api/v1/goals", token: alice.token,
		body: map[string]any{"year": 2024, "target_count": 5}}).errorMessage(t); msg != "Goal already exists for this year" {
		t.Errorf("duplicate goal message = %q", msg)
	}
	// bob's goal of the same year is his own.
	b.must(200, req{method: "POST", path: "/api/v1/goals", token: bob.token, body: map[string]any{"year": 2024, "target_count": 1}})

	b.must(200, req{method: "PUT", path: "/api/v1/goals/2023", token: alice.token, body: map[string]any{"target_count": 2}}).json(t, &g)
	if g.TargetCount != 2 || g.Percentage != 50 {
		t.Errorf("updated goal = %+v", g)
	}

	years := func(r response) []int {
		var out struct{ Goals []goalJSON }
		r.json(t, &out)
		var ys []int
		for _, g := range out.Goals {
			ys = append(ys, g.Year)
		}
		return ys
	}
	if got := years(b.must(200, req{method: "GET", path: "/api/v1/goals", token: alice.token})); !slices.Equal(got, []int{2024, 2023}) {
		t.Errorf("GET /goals years = %v", got)
	}
	if got := years(b.must(200, req{method: "GET", path: "/api/v1/users/" + alice.id.String() + "/goals", token: bob.token})); !slices.Equal(got, []int{2024, 2023}) {
		t.Errorf("GET /users/{alice}/goals as bob = %v", got)
	}
	if got := years(b.must(200, req{method: "GET", path: "/api/v1/users/" + alice.id.String(), token: bob.token})); !slices.Equal(got, []int{2024, 2023}) {
		t.Errorf("GET /users/{alice} goals = %v", got)
	}
	if p, _ := b.ownProfile(alice); len(p.Goals) != 2 {
		t.Errorf("GET /profile goals = %+v", p.Goals)
	}

	since = b.lastEvent()
	b.must(204, req{method: "DELETE", path: "/api/v1/goals/2023", token: alice.token})
	if deleted := b.eventPayloads(since, "GoalDeleted"); len(deleted) != 1 || deleted[0]["year"] != 2023.0 {
		t.Errorf("GoalDeleted payloads = %v", deleted)
	}
	b.must(404, req{method: "DELETE", path: "/api/v1/goals/2023", token: alice.token}).errorMessage(t)
	b.must(404, req{method: "PUT", path: "/api/v1/goals/2030", token: alice.token, body: map[string]any{"target_count": 2}}).errorMessage(t)
	// A user without goals has the key omitted on their page, as in the original.
	carol := b.register("carol")
	var page map[string]any
	b.must(200, req{method: "GET", path: "/api/v1/users/" + carol.id.String(), token: carol.token}).json(t, &page)
	if _, ok := page["goals"]; ok {
		t.Errorf("goals of a user without any = %v, want the key omitted", page["goals"])
	}
	if got := years(b.must(200, req{method: "GET", path: "/api/v1/goals", token: carol.token})); len(got) != 0 {
		t.Errorf("carol's goals = %v", got)
	}
}

func TestGoalsRejectBadRequests(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	b.must(200, req{method: "POST", path: "/api/v1/goals", token: alice.token, body: map[string]any{"year": 2024, "target_count": 2}})
	for _, c := range []struct {
		name   string
		r      req
		status int
		msg    string
	}{
		{"list without a token", req{method: "GET", path: "/api/v1/goals"}, 401, ""},
		{"create without a token", req{method: "POST", path: "/api/v1/goals", body: map[string]any{"year": 2025, "target_count": 1}}, 401, ""},
		{"update without a token", req{method: "PUT", path: "/api/v1/goals/2024", body: map[string]any{"target_count": 1}}, 401, ""},
		{"delete without a token", req{method: "DELETE", path: "/api/v1/goals/2024"}, 401, ""},
		{"user goals without a token", req{method: "GET", path: "/api/v1/users/" + alice.id.String() + "/goals"}, 401, ""},
		{"a year before 2020", req{method: "POST", path: "/api/v1/goals", token: alice.token,
			body: map[string]any{"year": 2019, "target_count": 1}}, 400, "Goal year must be 2020 or later"},
		{"a target of 0", req{method: "POST", path: "/api/v1/goals", token: alice.token,
			body: map[string]any{"year": 2025, "target_count": 0}}, 400, "Target count must be at least 1"},
		{"an update to 0", req{method: "PUT", path: "/api/v1/goals/2024", token: alice.token,
			body: map[string]any{"target_count": 0}}, 400, "Target count must be at least 1"},
		{"no year", req{method: "POST", path: "/api/v1/goals", token: alice.token, body: map[string]any{"target_count": 1}}, 422, ""},
		{"a year as text", req{method: "POST", path: "/api/v1/goals", token: alice.token,
			body: map[string]any{"year": "2025", "target_count": 1}}, 422, ""},
		{"an update without a target", req{method: "PUT", path: "/api/v1/goals/2024", token: alice.token, body: map[string]any{}}, 422, ""},
		{"malformed JSON", req{method: "POST", path: "/api/v1/goals", token: alice.token, body: `{"year":`}, 400, ""},
		{"a path year that is no year", req{method: "PUT", path: "/api/v1/goals/abcd", token: alice.token,
			body: map[string]any{"target_count": 1}}, 400, ""},
		{"a path year of five digits", req{method: "DELETE", path: "/api/v1/goals/20240", token: alice.token}, 400, ""},
		{"goals of an unknown user", req{method: "GET", path: "/api/v1/users/" + uuid.NewString() + "/goals", token: alice.token}, 404, ""},
		{"goals of a malformed id", req{method: "GET", path: "/api/v1/users/nope/goals", token: alice.token}, 400, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			since := b.lastEvent()
			msg := b.must(c.status, c.r).errorMessage(t)
			if c.msg != "" && msg != c.msg {
				t.Errorf("message = %q, want %q", msg, c.msg)
			}
			if got := b.eventTypes(since); len(got) != 0 {
				t.Errorf("a refused request committed %v", got)
			}
		})
	}
	if got := b.scalar(`SELECT group_concat(year || ':' || target_count) FROM goals`); got != "2024:2" {
		t.Errorf("goals after refused requests = %s", got)
	}
}
