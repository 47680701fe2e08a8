package httpapi_test

import (
	"strings"
	"testing"
)

// TestBadInputs sends each route what a client can get wrong and checks the documented status
// and the JSON error envelope: never a 500 for a client mistake.
func TestBadInputs(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register("alice")
	id, _ := b.logReview(a, "Heat", 3, "2024-03-01")
	review := "/api/v1/reviews/" + id.String()
	valid := func(over map[string]any) map[string]any {
		m := map[string]any{"manual_title": "Heat", "manual_release_year": 1995, "rating": 4, "watched_at": "2024-03-01"}
		for k, v := range over {
			if v == nil {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		return m
	}
	post := func(body any) req { return req{method: "POST", path: "/api/v1/reviews", token: a.token, body: body} }
	patch := func(body any) req { return req{method: "PATCH", path: review, token: a.token, body: body} }
	huge := `{"manual_title":"` + strings.Repeat("x", 1<<20) + `"}`

	cases := []struct {
		name   string
		r      req
		status int
	}{
		{"review: missing rating", post(valid(map[string]any{"rating": nil})), 422},
		{"review: missing watched_at", post(valid(map[string]any{"watched_at": nil})), 422},
		{"review: rating a string", post(valid(map[string]any{"rating": "five"})), 422},
		{"review: rating a float", post(valid(map[string]any{"rating": 4.5})), 422},
		{"review: rating huge", post(`{"rating": 1e40, "watched_at": "2024-03-01"}`), 422},
		{"review: title a number", post(valid(map[string]any{"manual_title": 12})), 422},
		{"review: rating 0", post(valid(map[string]any{"rating": 0})), 400},
		{"review: rating 6", post(valid(map[string]any{"rating": 6})), 400},
		{"review: rating negative", post(valid(map[string]any{"rating": -1})), 400},
		{"review: date with slashes", post(valid(map[string]any{"watched_at": "2024/03/01"})), 400},
		{"review: date day first", post(valid(map[string]any{"watched_at": "01-03-2024"})), 400},
		{"review: date month 13", post(valid(map[string]any{"watched_at": "2024-13-01"})), 400},
		{"review: date empty", post(valid(map[string]any{"watched_at": ""})), 400},
		{"review: date words", post(valid(map[string]any{"watched_at": "yesterday"})), 400},
		{"review: time without date", post(valid(map[string]any{"watched_at": "10:00"})), 400},
		{"review: comment 10,001 bytes", post(valid(map[string]any{"comment": strings.Repeat("é", 5000) + "x"})), 400},
		{"review: unknown watch_medium", post(valid(map[string]any{"watch_medium": "vhs"})), 422},
		{"review: no title", post(valid(map[string]any{"manual_title": nil})), 400},
		{"review: no year", post(valid(map[string]any{"manual_release_year": nil})), 400},
		{"review: year 1700", post(valid(map[string]any{"manual_release_year": 1700})), 400},
		{"review: title 256 bytes", post(valid(map[string]any{"manual_title": strings.Repeat("t", 256)})), 400},
		{"review: bad external id", post(valid(map[string]any{"external_metadata_id": "imdb:123"})), 400},
		{"review: malformed JSON", post(`{"rating": 4,`), 400},
		{"review: not JSON", post(`rating=4`), 400},
		{"review: two values", post(`{"rating": 4} {}`), 400},
		{"review: empty body", post(""), 400},
		{"review: JSON array", post(`[1, 2]`), 422},
		{"review: body over 1 MiB", post(huge), 413},
		{"review: form media type", req{method: "POST", path: "/api/v1/reviews", token: a.token, body: `{}`,
			header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}}, 415},
		{"review: no media type", req{method: "POST", path: "/api/v1/reviews", token: a.token, body: `{}`,
			header: map[string]string{"Content-Type": ""}}, 415},
		{"review: long Idempotency-Key", req{method: "POST", path: "/api/v1/reviews", token: a.token, body: valid(nil),
			header: map[string]string{"Idempotency-Key": strings.Repeat("k", 256)}}, 400},
		{"edit: malformed UUID", req{method: "PATCH", path: "/api/v1/reviews/not-a-uuid", token: a.token, body: map[string]any{}}, 400},
		{"edit: unknown id", req{method: "PATCH", path: "/api/v1/reviews/0195c1f6-0000-7000-8000-000000000000", token: a.token,
			body: map[string]any{"rating": 2}}, 404},
		{"edit: rating 6", patch(map[string]any{"rating": 6}), 400},
		{"edit: rating null", patch(map[string]any{"rating": nil}), 422},
		{"edit: rating a string", patch(map[string]any{"rating": "1"}), 422},
		{"edit: watched_at null", patch(map[string]any{"watched_at": nil}), 422},
		{"edit: bad date", patch(map[string]any{"watched_at": "2024-02-30"}), 400},
		{"edit: unknown medium", patch(map[string]any{"watch_medium": "laserdisc"}), 422},
		{"edit: comment too long", patch(map[string]any{"comment": strings.Repeat("c", 10001)}), 400},
		{"delete: malformed UUID", req{method: "DELETE", path: "/api/v1/reviews/123", token: a.token}, 400},
		{"diary: limit 0", req{method: "GET", path: "/api/v1/diary?limit=0"}, 400},
		{"diary: limit 101", req{method: "GET", path: "/api/v1/diary?limit=101"}, 400},
		{"diary: limit abc", req{method: "GET", path: "/api/v1/diary?limit=abc"}, 400},
		{"diary: negative offset", req{method: "GET", path: "/api/v1/diary?offset=-1"}, 400},
		{"diary: malformed user_id", req{method: "GET", path: "/api/v1/diary?user_id=alice"}, 400},
		{"feed: limit 1000", req{method: "GET", path: "/api/v1/activity-feed?limit=1000"}, 400},
		{"movies: limit -5", req{method: "GET", path: "/api/v1/movies?limit=-5"}, 400},
		{"movie: malformed id", req{method: "GET", path: "/api/v1/movies/xyz"}, 400},
		{"movie: unknown id", req{method: "GET", path: "/api/v1/movies/0195c1f6-0000-7000-8000-000000000000"}, 404},
		{"movie profile: not enriched", req{method: "GET", path: "/api/v1/movies/0195c1f6-0000-7000-8000-000000000000/profile"}, 404},
		{"history: malformed id", req{method: "GET", path: "/api/v1/movies/1/history"}, 400},
		{"person: unknown", req{method: "GET", path: "/api/v1/people/0195c1f6-0000-7000-8000-000000000000"}, 404},
		{"sync poster: unknown movie", req{method: "POST", path: "/api/v1/movies/0195c1f6-0000-7000-8000-000000000000/sync-poster", token: a.token}, 404},
		{"watchlist: unknown movie_id", req{method: "POST", path: "/api/v1/watchlist", token: a.token,
			body: map[string]any{"movie_id": "0195c1f6-0000-7000-8000-000000000000"}}, 404},
		{"watchlist: malformed movie_id", req{method: "POST", path: "/api/v1/watchlist", token: a.token,
			body: map[string]any{"movie_id": "nope"}}, 422},
		{"watchlist: nothing named", req{method: "POST", path: "/api/v1/watchlist", token: a.token, body: map[string]any{}}, 400},
		{"watchlist: limit 101", req{method: "GET", path: "/api/v1/watchlist?limit=101", token: a.token}, 400},
		{"watchlist: malformed path id", req{method: "GET", path: "/api/v1/watchlist/zzz", token: a.token}, 400},
		{"follow: missing handle", req{method: "POST", path: "/api/v1/social/follow", token: a.token, body: map[string]any{}}, 422},
		{"follow: self", req{method: "POST", path: "/api/v1/social/follow", token: a.token, body: map[string]any{"handle": "alice"}}, 400},
		{"follow: unknown user", req{method: "POST", path: "/api/v1/social/follow", token: a.token, body: map[string]any{"handle": "nobody"}}, 404},
		{"follow: remote handle", req{method: "POST", path: "/api/v1/social/follow", token: a.token,
			body: map[string]any{"handle": "@bob@mastodon.example"}}, 501},
		{"follow: empty handle", req{method: "POST", path: "/api/v1/social/follow", token: a.token, body: map[string]any{"handle": "@"}}, 400},
		{"unfollow: not a URL", req{method: "POST", path: "/api/v1/social/unfollow", token: a.token, body: map[string]any{"actor_url": "bob"}}, 400},
		{"unfollow: not followed", req{method: "POST", path: "/api/v1/social/unfollow", token: a.token,
			body: map[string]any{"actor_url": "https://elsewhere.test/users/bob"}}, 404},
		{"accept: bad local id", req{method: "POST", path: "/api/v1/social/followers/accept", token: a.token,
			body: map[string]any{"actor_url": "http://diary.test/users/not-a-uuid"}}, 400},
		{"block: self", req{method: "POST", path: "/api/v1/social/block", token: a.token,
			body: map[string]any{"actor_url": "http://diary.test/users/" + a.id.String()}}, 400},
		{"wrap-up: bad start", req{method: "POST", path: "/api/v1/wrapups/generate", token: a.token,
			body: map[string]any{"start_date": "2024-1-1", "end_date": "2024-12-31"}}, 400},
		{"wrap-up: end before start", req{method: "POST", path: "/api/v1/wrapups/generate", token: a.token,
			body: map[string]any{"start_date": "2024-12-31", "end_date": "2024-01-01"}}, 400},
		{"wrap-up: missing end", req{method: "POST", path: "/api/v1/wrapups/generate", token: a.token,
			body: map[string]any{"start_date": "2024-01-01"}}, 422},
		{"wrap-up: unknown user", req{method: "POST", path: "/api/v1/wrapups/generate", token: a.token,
			body: map[string]any{"start_date": "2024-01-01", "end_date": "2024-12-31", "user_id": "0195c1f6-0000-7000-8000-000000000000"}}, 404},
		{"wrap-up: malformed id", req{method: "GET", path: "/api/v1/wrapups/1", token: a.token}, 400},
		{"settings: missing field", req{method: "PUT", path: "/api/v1/settings", token: a.token,
			body: map[string]any{"federate_goals": true, "federate_reviews": true}}, 422},
		{"settings: string for bool", req{method: "PUT", path: "/api/v1/settings", token: a.token,
			body: map[string]any{"federate_goals": "yes", "federate_reviews": true, "federate_watchlist": true}}, 422},
		{"user: unknown view", req{method: "GET", path: "/api/v1/users/" + a.id.String() + "?view=trends-and-more", token: a.token}, 400},
		{"user: unknown id", req{method: "GET", path: "/api/v1/users/0195c1f6-0000-7000-8000-000000000000", token: a.token}, 404},
		{"register: missing password", req{method: "POST", path: "/api/v1/auth/register",
			body: map[string]any{"email": "x@example.test", "username": "xx"}}, 422},
		{"login: email a number", req{method: "POST", path: "/api/v1/auth/login", body: map[string]any{"email": 1, "password": "x"}}, 422},
		{"unknown route", req{method: "GET", path: "/api/v1/nothing-here"}, 404},
		{"wrong method", req{method: "PUT", path: "/api/v1/reviews", token: a.token}, 405},
		{"wrong method on a public route", req{method: "DELETE", path: "/api/v1/diary"}, 405},
	}
	for _, c := range cases {
		r := b.do(c.r)
		if r.status != c.status {
			t.Errorf("%s: %s %s = %d %s, want %d", c.name, c.r.method, c.r.path, r.status, trim(r.body), c.status)
			continue
		}
		r.errorMessage(t)
	}
	if got := b.scalar(`SELECT count(*) FROM reviews`); got != "1" {
		t.Errorf("reviews after only bad requests = %s, want the 1 of the set-up", got)
	}
}

func trim(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// TestWatchedAtForms: every accepted watched_at form is stored as the same instant in UTC.
func TestWatchedAtForms(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register("alice")
	for form, want := range map[string]string{
		"2024-03-01":                "2024-03-01T00:00:00",
		"2024-03-01T20:15":          "2024-03-01T20:15:00",
		"2024-03-01T20:15:30":       "2024-03-01T20:15:30",
		"2024-03-01 20:15:30":       "2024-03-01T20:15:30",
		"2024-03-01T22:15:30+02:00": "2024-03-01T20:15:30",
		"2024-03-01T20:15:30.250Z":  "2024-03-01T20:15:30",
	} {
		var out struct {
			Review struct {
				WatchedAt string `json:"watched_at"`
			} `json:"review"`
		}
		b.must(201, req{method: "POST", path: "/api/v1/reviews", token: a.token, body: map[string]any{
			"manual_title": "Heat", "manual_release_year": 1995, "rating": 4, "watched_at": form,
		}}).json(t, &out)
		if out.Review.WatchedAt != want {
			t.Errorf("watched_at %q came back as %q, want %q", form, out.Review.WatchedAt, want)
		}
	}
}
