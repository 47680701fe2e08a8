package web_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/google/uuid"

	"moviesdiary/internal/usecase/wrapup"
)

// seedDiary fills the database with users users, movies movies and reviews reviews (spread
// over the users and movies, with 200-character comments), as plain inserts. ann (a signed-in
// browser, returned) owns every users-th review and follows every other user (so her following
// tab holds nearly every review); her 2021 wrap-up and the instance's are built.
func seedDiary(tb testing.TB, b *bundle, users, movies, reviews int) *browser {
	tb.Helper()
	ann := b.register("ann")
	b.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < ?)
		INSERT INTO users (id, username, email, password_hash)
		SELECT printf('00000000-0000-4000-8000-%012x', i), 'user' || i, 'user' || i || '@example.test', 'x' FROM n`, users-1)
	b.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < ?)
		INSERT INTO movies (id, external_metadata_id, title, release_year, director)
		SELECT printf('00000000-0000-4000-9000-%012x', i), 'tmdb:' || i, 'Movie number ' || i, 1950 + i % 70,
			'Director ' || (i % 97) FROM n`, movies)
	b.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < ?)
		INSERT INTO reviews (id, user_id, movie_id, rating, comment, watch_medium, watched_at)
		SELECT printf('00000000-0000-4000-a000-%012x', i),
			CASE WHEN i % ? = 0 THEN ? ELSE printf('00000000-0000-4000-8000-%012x', 1 + i % (? - 1)) END,
			printf('00000000-0000-4000-9000-%012x', 1 + i % ?), 1 + i % 5,
			substr(replace(hex(zeroblob(100)), '00', 'A review. '), 1, 200), 'cinema',
			strftime('%Y-%m-%dT%H:%M:%fZ', '2020-01-01', '+' || (i % 2000) || ' days') FROM n`,
		reviews, users, b.userID("ann").String(), users, movies)
	b.Exec(`INSERT INTO follows (follower_kind, follower_id, target_kind, target_id, status)
		SELECT 'local', ?1, 'local', id, 'accepted' FROM users WHERE id != ?1`, b.userID("ann").String())
	reindex(tb, b)
	admin := b.userID("ann") // the first account
	for _, user := range []*uuid.UUID{&admin, nil} {
		w, err := b.site.Web.WrapUps.Generate(ctx, wrapup.GenerateCommand{Admin: admin, UserID: user,
			StartDate: "2021-01-01", EndDate: "2021-12-31"})
		if err != nil {
			tb.Fatal(err)
		}
		generate(tb, b, w.ID.String())
	}
	return ann
}

// benchPages are the pages the benchmark and the size test render, as ann sees them.
func benchPages(b *bundle) map[string]string {
	popular := "00000000-0000-4000-9000-000000000001"
	ann := b.userID("ann").String()
	return map[string]string{
		"home": "/", "diary": "/diary", "diary-rating-p10": "/diary?sort=rating_desc&page=10", "movie": "/movie/" + popular,
		"profile": "/u/" + ann, "profile-trends": "/u/" + ann + "?view=trends", "watchlist": "/watchlist",
		"search": "/search?q=movie", "people": "/people", "wrapups": "/wrapups", "settings": "/settings",
		"log":       "/log?q=number",
		"following": "/?tab=following", "following-p10": "/?tab=following&page=10",
		"wrapup-shared": "/u/" + ann + "/wrapup/2021", "wrapup-instance": "/wrapup/2021",
		"edit": "/review/" + b.String(`SELECT id FROM reviews WHERE user_id = ? LIMIT 1`, ann) + "/edit",
	}
}

// BenchmarkPages renders each page server-side (the handler, no network) on a 10,000-review
// database, signed in. The bar is 10 ms a page:
//
//	go test -tags sqlite_fts5 -run '^$' -bench Pages ./internal/adapters/web/
func BenchmarkPages(bb *testing.B) {
	b := setup(bb)
	ann := seedDiary(bb, b, 50, 2000, 10_000)
	u, _ := url.Parse(b.srv.URL)
	cookies := ann.client.Jar.Cookies(u)
	h := b.site.Handler()
	pages := benchPages(b)
	// The REST API's feed reads the same page of the same use case: the reference that tells
	// the store's share from the rendering's.
	pages["api-activity-feed"] = "/api/v1/activity-feed?limit=20"
	for name, path := range pages {
		bb.Run(name, func(bb *testing.B) {
			for bb.Loop() {
				req := httptest.NewRequest(http.MethodGet, path, nil)
				for _, c := range cookies {
					req.AddCookie(c)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					bb.Fatalf("%s: status %d", path, rec.Code)
				}
			}
			bb.ReportMetric(float64(bb.Elapsed().Microseconds())/float64(bb.N)/1000, "ms/page")
		})
	}
}

// TestPagesStayUnder50KB checks every main page with full lists (20 entries of long comments)
// weighs under 50 KB of HTML plus the stylesheet.
func TestPagesStayUnder50KB(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := seedDiary(t, b, 5, 100, 500)
	css := len(mustStatus(t, ann.get("/static/style.css"), http.StatusOK).body)
	for name, path := range benchPages(b) {
		p := mustStatus(t, ann.get(path), http.StatusOK)
		if size := len(p.body) + css; size > 50_000 {
			t.Errorf("%s: %d bytes of HTML + CSS, over 50 KB", name, size)
		} else {
			t.Logf("%-16s %6d bytes HTML + %d CSS", name, len(p.body), css)
		}
	}
}
