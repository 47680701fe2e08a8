package httpapi_test

import (
	"bytes"
	"regexp"
	"testing"
)

// TestWireDateFormats pins the bytes of every time field the original client parses: review
// times are naive YYYY-MM-DDTHH:MM:SS (a "Z" crashes its review sheet), watchlist and wrap-up
// status times are chrono's YYYY-MM-DD HH:MM:SS, wrap-up ranges are dates, and token expiries
// stay RFC 3339.
func TestWireDateFormats(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register("alice") // the first user: the admin
	// Accepted as RFC 3339 with an offset, stored and answered as naive UTC.
	_, movie := b.logReview(a, "Heat", 4, "2024-03-01T22:15:30+02:00")
	const watched = `"watched_at":"2024-03-01T20:15:30"`
	b.must(201, req{method: "POST", path: "/api/v1/watchlist", token: a.token, body: map[string]any{"movie_id": movie}})
	b.execSQL(`UPDATE watchlist SET added_at = '2024-04-02T10:11:12.345Z'`)

	var wu struct {
		ID string `json:"id"`
	}
	b.must(200, req{method: "POST", path: "/api/v1/wrapups/generate", token: a.token,
		body: map[string]any{"start_date": "2024-01-01", "end_date": "2024-12-31"}}).json(t, &wu)
	b.execSQL(`UPDATE wrapups SET created_at = '2024-05-06T07:08:09.5Z', completed_at = '2024-05-06T07:08:10Z'`)

	// Token expiries stay RFC 3339 (the client stores them as they come).
	login := b.must(200, req{method: "POST", path: "/api/v1/auth/login",
		body: map[string]string{"email": "alice@example.test", "password": "password-alice"}}).body
	if !regexp.MustCompile(`"expires_at":"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z"`).Match(login) {
		t.Errorf("login expires_at is not RFC 3339 UTC: %s", login)
	}
	for _, c := range []struct {
		name, path string
		want       []string
	}{
		{"diary", "/api/v1/diary?user_id=" + a.id.String(), []string{watched}},
		{"feed", "/api/v1/activity-feed", []string{watched}},
		{"history", "/api/v1/movies/" + movie.String() + "/history", []string{watched}},
		{"movie reviews", "/api/v1/movies/" + movie.String(), []string{watched}},
		{"profile recent", "/api/v1/users/" + a.id.String() + "?view=recent", []string{watched}},
		{"profile history", "/api/v1/users/" + a.id.String() + "?view=history", []string{watched, `"year_month":"2024-03"`}},
		{"watchlist", "/api/v1/watchlist", []string{`"added_at":"2024-04-02 10:11:12"`}},
		{"wrap-up", "/api/v1/wrapups/" + wu.ID, []string{`"start_date":"2024-01-01"`, `"end_date":"2024-12-31"`,
			`"created_at":"2024-05-06 07:08:09"`, `"completed_at":"2024-05-06 07:08:10"`}},
		{"wrap-ups", "/api/v1/wrapups", []string{`"created_at":"2024-05-06 07:08:09"`}},
	} {
		body := b.must(200, req{method: "GET", path: c.path, token: a.token}).body
		for _, w := range c.want {
			if !bytes.Contains(body, []byte(w)) {
				t.Errorf("%s: %s lacks %s", c.name, body, w)
			}
		}
		if bytes.Contains(body, []byte(`:30Z"`)) {
			t.Errorf("%s: %s has a zone suffix on a review time", c.name, body)
		}
	}
}

// execSQL runs a statement on the test's database file.
func (b *bundle) execSQL(query string, args ...any) {
	b.t.Helper()
	if _, err := b.db.Exec(query, args...); err != nil {
		b.t.Fatalf("%s: %v", query, err)
	}
}
