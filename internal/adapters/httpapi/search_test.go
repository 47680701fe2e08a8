package httpapi_test

import (
	"net/url"
	"testing"
)

// TestSearchRoute: the shape of GET /api/v1/search, and a JSON 400 (never a 500) for every
// malformed parameter.
func TestSearchRoute(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register("alice")
	b.must(201, req{method: "POST", path: "/api/v1/reviews", token: a.token,
		body: map[string]any{"manual_title": "Blade Runner", "manual_release_year": 1982, "rating": 5, "watched_at": "2024-01-02"}})
	if _, err := b.db.Exec(`INSERT INTO search_movies (movie_id, title) SELECT id, title FROM movies`); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Movies struct {
			Items []struct {
				MovieID     string   `json:"movie_id"`
				Title       string   `json:"title"`
				ReleaseYear int      `json:"release_year"`
				Genres      []string `json:"genres"`
			} `json:"items"`
			TotalCount int `json:"total_count"`
			Limit      int `json:"limit"`
			Offset     int `json:"offset"`
		} `json:"movies"`
		People struct {
			Items      []any `json:"items"`
			TotalCount int   `json:"total_count"`
		} `json:"people"`
	}
	b.must(200, req{method: "GET", path: "/api/v1/search?q=" + url.QueryEscape("blade run")}).json(t, &got)
	m := got.Movies
	if m.TotalCount != 1 || len(m.Items) != 1 || m.Items[0].Title != "Blade Runner" || m.Items[0].ReleaseYear != 1982 ||
		m.Items[0].Genres == nil || m.Limit != 5 || m.Offset != 0 || got.People.Items == nil {
		t.Errorf("search = %+v", got)
	}
	for _, q := range []string{"limit=0", "limit=101", "limit=x", "offset=-1", "year=abc", "year=70000", "person_id=nope",
		"q=" + url.QueryEscape(`"unbalanced NEAR(`)} {
		r := b.do(req{method: "GET", path: "/api/v1/search?" + q})
		if q == "q="+url.QueryEscape(`"unbalanced NEAR(`) {
			if r.status != 200 {
				t.Errorf("FTS syntax in q: %d %s, want 200", r.status, r.body)
			}
			continue
		}
		if r.status != 400 {
			t.Errorf("%s: %d %s, want 400", q, r.status, r.body)
			continue
		}
		r.errorMessage(t)
	}
}

func TestReindexRoute(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin, user := b.register("admin"), b.register("bob") // the first user is the admin
	b.must(401, req{method: "POST", path: "/api/v1/admin/reindex-search"})
	b.must(403, req{method: "POST", path: "/api/v1/admin/reindex-search", token: user.token})
	b.must(202, req{method: "POST", path: "/api/v1/admin/reindex-search", token: admin.token})
	var n int
	if err := b.db.QueryRow(`SELECT count(*) FROM event_queue WHERE event_type = 'SearchReindexRequested'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("%d SearchReindexRequested queued (%v), want 1", n, err)
	}
}
