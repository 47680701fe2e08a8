package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/review"
)

// recount counts every scope of review_counts from the reviews themselves.
const recount = `SELECT 'all' AS scope, '' AS key, count(*) AS n FROM reviews
UNION ALL SELECT 'local', '', count(*) FROM reviews WHERE remote_actor_url IS NULL
UNION ALL SELECT 'user', user_id, count(*) FROM reviews GROUP BY user_id
UNION ALL SELECT 'user_local', user_id, count(*) FROM reviews WHERE remote_actor_url IS NULL GROUP BY user_id`

// recountMovies computes movie_review_stats from the reviews themselves.
const recountMovies = `SELECT movie_id, count(*), count(remote_actor_url), sum(rating), count(*) FILTER (WHERE rating = 1),
	count(*) FILTER (WHERE rating = 2), count(*) FILTER (WHERE rating = 3), count(*) FILTER (WHERE rating = 4),
	count(*) FILTER (WHERE rating = 5) FROM reviews GROUP BY movie_id ORDER BY movie_id`

// checkCounts fails the test unless every maintained count equals a recount (a scope with no
// review may keep no row or a 0 row, never another number).
func checkCounts(t *testing.T, s *Store, when string) {
	t.Helper()
	ctx := context.Background()
	type cnt struct {
		Scope string `db:"scope"`
		Key   string `db:"key"`
		N     int    `db:"n"`
	}
	var want, got []cnt
	if err := s.read.SelectContext(ctx, &want, recount); err != nil {
		t.Fatal(err)
	}
	// The 'following' counts are following_feed's (TestFollowingFeedKeptExact).
	if err := s.read.SelectContext(ctx, &got, `SELECT scope, key, n FROM review_counts WHERE (n != 0 OR scope IN ('all', 'local'))
		AND scope != 'following'`); err != nil {
		t.Fatal(err)
	}
	w := map[string]int{}
	for _, c := range want {
		if c.N != 0 || c.Key == "" {
			w[c.Scope+"/"+c.Key] = c.N
		}
	}
	g := map[string]int{}
	for _, c := range got {
		g[c.Scope+"/"+c.Key] = c.N
	}
	if fmt.Sprint(w) != fmt.Sprint(g) {
		t.Errorf("%s: maintained counts %v, recount %v", when, g, w)
	}
	rows := func(q string) string {
		t.Helper()
		r, err := s.read.QueryContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var out []string
		for r.Next() {
			var id string
			var v [8]int
			if err := r.Scan(&id, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprint(id, v))
		}
		return strings.Join(out, "\n")
	}
	if got, want := rows(`SELECT movie_id, n, federated, rating_sum, r1, r2, r3, r4, r5 FROM movie_review_stats ORDER BY movie_id`),
		rows(recountMovies); got != want {
		t.Errorf("%s: movie stats\n%s\nrecount\n%s", when, got, want)
	}
}

// TestReviewCountsBackfilledAndMaintained: migration 0200 backfills the counts of reviews that
// existed before it, and every insert, delete, move between users, movies or local/remote, and
// foreign-key cascade keeps them equal to a recount; the paged reads report them.
func TestReviewCountsBackfilledAndMaintained(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "counts.db"))
	migrateTo(t, s, 150)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := s.write.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	users := []string{uuid.NewString(), uuid.NewString()}
	movies := []string{uuid.NewString(), uuid.NewString()}
	for i, u := range users {
		exec(`INSERT INTO users (id, username, email, password_hash) VALUES (?, ?, ?, 'x')`, u, fmt.Sprint("u", i), fmt.Sprint("u", i, "@example.test"))
	}
	for i, m := range movies {
		exec(`INSERT INTO movies (id, title) VALUES (?, ?)`, m, fmt.Sprint("m", i))
	}
	added := 0
	addReview := func(user, movie string, remote bool) string {
		id := uuid.NewString()
		added++
		var actor any
		if remote {
			actor = "https://remote.example/users/" + id
		}
		exec(`INSERT INTO reviews (id, user_id, movie_id, rating, watched_at, remote_actor_url) VALUES (?, ?, ?, ?, '2024-01-01T00:00:00Z', ?)`,
			id, user, movie, 1+added%5, actor)
		return id
	}
	var ids []string
	for i := range 7 {
		ids = append(ids, addReview(users[i%2], movies[i%2], i%3 == 0))
	}

	if err := s.Migrate(ctx, testLogger(t)); err != nil {
		t.Fatal(err)
	}
	checkCounts(t, s, "after the backfill")

	ids = append(ids, addReview(users[0], movies[1], false), addReview(users[1], movies[0], true))
	checkCounts(t, s, "after inserts")
	exec(`DELETE FROM reviews WHERE id = ?`, ids[1])
	checkCounts(t, s, "after a delete")
	exec(`UPDATE reviews SET user_id = ?, movie_id = ? WHERE id = ?`, users[1], movies[0], ids[2])
	checkCounts(t, s, "after moving a review")
	exec(`UPDATE reviews SET remote_actor_url = 'https://remote.example/x' WHERE id = ?`, ids[4])
	exec(`UPDATE reviews SET remote_actor_url = NULL WHERE id = ?`, ids[0])
	exec(`UPDATE reviews SET rating = 5, comment = 'edited' WHERE id = ?`, ids[5])
	exec(`UPDATE reviews SET comment = 'edited again' WHERE id = ?`, ids[6])
	checkCounts(t, s, "after local/remote changes and an edit")
	exec(`DELETE FROM movies WHERE id = ?`, movies[1])
	checkCounts(t, s, "after a movie's reviews cascaded away")

	// The paged reads report the maintained totals.
	var want int
	if err := s.read.GetContext(ctx, &want, `SELECT count(*) FROM reviews WHERE user_id = ?`, users[1]); err != nil {
		t.Fatal(err)
	}
	u := uuid.MustParse(users[1])
	d, err := s.Diary(ctx, review.DiaryFilter{UserID: &u}, domain.Page{Limit: 2})
	if err != nil || d.Total != want || len(d.Items) != min(2, want) {
		t.Errorf("diary of user: total %d, %d items (err %v), want total %d", d.Total, len(d.Items), err, want)
	}
	if err := s.read.GetContext(ctx, &want, `SELECT count(*) FROM reviews`); err != nil {
		t.Fatal(err)
	}
	if f, err := s.Feed(ctx, review.SortDateDesc, domain.Page{Limit: 1}); err != nil || f.Total != want {
		t.Errorf("feed total %d (err %v), want %d", f.Total, err, want)
	}
	m := uuid.MustParse(movies[0])
	st, err := s.MovieStats(ctx, m)
	if err := s.read.GetContext(ctx, &want, `SELECT count(*) FROM reviews WHERE movie_id = ?`, movies[0]); err != nil {
		t.Fatal(err)
	}
	if err != nil || st.TotalCount != want || st.AvgRating == nil {
		t.Errorf("movie stats %+v (err %v), want %d reviews", st, err, want)
	}
	if mr, err := s.MovieReviews(ctx, m, domain.Page{Limit: 3}); err != nil || mr.Total != want {
		t.Errorf("movie reviews total %d (err %v), want %d", mr.Total, err, want)
	}
	if st, err := s.MovieStats(ctx, uuid.MustParse(movies[1])); err != nil || st.TotalCount != 0 || st.AvgRating != nil {
		t.Errorf("stats of a movie with no review: %+v, %v", st, err)
	}
	nobody := uuid.New()
	if d, err := s.Diary(ctx, review.DiaryFilter{UserID: &nobody}, domain.Page{Limit: 5}); err != nil || d.Total != 0 || len(d.Items) != 0 {
		t.Errorf("diary of a user with no review: %+v, %v", d, err)
	}
}

// TestPagedReadsUseIndexes: no paged read of reviews reads its whole scope: EXPLAIN QUERY PLAN
// shows neither a full SCAN of reviews nor a temporary b-tree sorting them, for every sort order
// and every scope the API lists (one user, local reviews, all reviews, one movie, an outbox), and
// the web home page's following feed.
func TestPagedReadsUseIndexes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "plans.db"))
	if err := s.Migrate(ctx, testLogger(t)); err != nil {
		t.Fatal(err)
	}
	page := ` LIMIT CAST(? AS INTEGER) OFFSET CAST(? AS INTEGER)`
	type query struct {
		name, sql string
		args      []any
	}
	var queries []query
	for _, r := range s.PagedReads() {
		queries = append(queries, query{r.Name, r.Query, r.Args})
	}
	queries = append(queries,
		query{"movie reviews", `SELECT ` + sqlrow.ReviewColumns + `, COALESCE(u.username, r.remote_actor_url, '') AS user_display
			FROM reviews r LEFT JOIN users u ON u.id = r.user_id WHERE r.movie_id = ?
			ORDER BY r.watched_at DESC, r.id DESC` + page, []any{"m", 20, 0}},
		query{"outbox", `SELECT ` + sqlrow.ReviewColumns + `, ` + sqlrow.MovieColumnsAsMovie + ` FROM reviews r
			JOIN movies m ON m.id = r.movie_id WHERE r.user_id = ? AND r.remote_actor_url IS NULL
			ORDER BY r.created_at DESC, r.id DESC` + page, []any{"u", 20, 0}},
		query{"a count", `SELECT n FROM review_counts WHERE scope = ? AND key = ?`, []any{"user", "u"}},
	)
	for _, q := range queries {
		rows, err := s.read.QueryContext(ctx, `EXPLAIN QUERY PLAN `+q.sql, q.args...)
		if err != nil {
			t.Fatalf("%s: %v", q.name, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		// A diary or feed page is chosen in a subquery from a covering index; the outer query
		// then reads and orders only the page's rows (a sort of at most one page is fine).
		paged := strings.Contains(q.sql, ") page CROSS JOIN")
		for _, step := range plan {
			// An ordered index walk ("SCAN r USING INDEX") stops after the page; a bare SCAN
			// or a sort reads every row of its scope.
			if strings.HasPrefix(step, "SCAN r") && !strings.Contains(step, "USING") ||
				strings.HasPrefix(step, "SCAN reviews") && !strings.Contains(step, "USING") ||
				strings.Contains(step, "TEMP B-TREE") && !(paged && step == "USE TEMP B-TREE FOR ORDER BY") {
				t.Errorf("%s reads its whole scope: %s", q.name, strings.Join(plan, "; "))
			}
		}
		// A WITHOUT ROWID table's primary key (following_feed's) is itself a covering index.
		if joined := strings.Join(plan, "; "); paged && !strings.Contains(joined, "USING COVERING INDEX") &&
			!strings.Contains(joined, "USING PRIMARY KEY") {
			t.Errorf("%s: the page is not chosen from a covering index: %s", q.name, strings.Join(plan, "; "))
		}
	}
}
