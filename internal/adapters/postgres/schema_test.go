package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jmoiron/sqlx"
)

// What the schema itself enforces and maintains, as SQLite's triggers do there.

func migratedDB(t *testing.T) *sqlx.DB {
	t.Helper()
	db, err := sqlx.Open("pgx", migratedURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func exec(t *testing.T, db *sqlx.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(context.Background(), query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// TestReviewCountsFollowReviews: the maintained counts of 0200 follow inserts, moves and
// deletes, including the deletes a user's removal cascades to (a count is the sum of its slots:
// 0206, 0410).
func TestReviewCountsFollowReviews(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := migratedDB(t)
	exec(t, db, `INSERT INTO users (id, username, email, password_hash) VALUES ('u1', 'Ann', 'ann@example.org', 'x'),
		('u2', 'Bob', 'bob@example.org', 'x')`)
	exec(t, db, `INSERT INTO movies (id, title) VALUES ('m1', 'Alien'), ('m2', 'Heat')`)
	exec(t, db, `INSERT INTO reviews (id, user_id, movie_id, rating, watched_at, remote_actor_url) VALUES
		('r1', 'u1', 'm1', 5, '2026-01-01T00:00:00.000Z', NULL),
		('r2', 'u1', 'm1', 3, '2026-01-02T00:00:00.000Z', NULL),
		('r3', 'remote', 'm1', 4, '2026-01-03T00:00:00.000Z', 'https://elsewhere.example/users/c'),
		('r4', 'u2', 'm2', 1, '2026-01-04T00:00:00.000Z', NULL)`)
	exec(t, db, `UPDATE reviews SET user_id = 'u2', movie_id = 'm2', rating = 2 WHERE id = 'r2'`)
	exec(t, db, `DELETE FROM users WHERE id = 'u1'`) // takes r1 with it (0021's trigger)

	counts := map[string]int{}
	var rows []struct {
		Scope string `db:"scope"`
		Key   string `db:"key"`
		N     int    `db:"n"`
	}
	if err := db.SelectContext(ctx, &rows, `SELECT scope, key, sum(n) AS n FROM review_counts GROUP BY scope, key`); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		counts[r.Scope+"/"+r.Key] = r.N
	}
	want := map[string]int{"all/": 3, "local/": 2, "user/u2": 2, "user_local/u2": 2, "user/remote": 1}
	if len(counts) != len(want) {
		t.Fatalf("review_counts %v, want %v", counts, want)
	}
	for k, n := range want {
		if counts[k] != n {
			t.Fatalf("review_counts %v, want %v", counts, want)
		}
	}
	var stats []struct {
		Movie     string `db:"movie_id"`
		N         int    `db:"n"`
		Federated int    `db:"federated"`
		Sum       int    `db:"rating_sum"`
		R1        int    `db:"r1"`
		R2        int    `db:"r2"`
		R4        int    `db:"r4"`
	}
	if err := db.SelectContext(ctx, &stats, `SELECT movie_id, sum(n) AS n, sum(federated) AS federated, sum(rating_sum) AS rating_sum,
		sum(r1) AS r1, sum(r2) AS r2, sum(r4) AS r4 FROM movie_review_stats GROUP BY movie_id ORDER BY movie_id`); err != nil {
		t.Fatal(err)
	}
	if len(stats) != 2 || stats[0].N != 1 || stats[0].Federated != 1 || stats[0].Sum != 4 || stats[0].R4 != 1 ||
		stats[1].N != 2 || stats[1].Sum != 3 || stats[1].R1 != 1 || stats[1].R2 != 1 {
		t.Fatalf("movie_review_stats %+v", stats)
	}
}

// TestLocalReviewNeedsItsUser: 0021's trigger refuses a local review of an unknown user with a
// foreign-key violation, and lets a remote one through.
func TestLocalReviewNeedsItsUser(t *testing.T) {
	t.Parallel()
	db := migratedDB(t)
	exec(t, db, `INSERT INTO movies (id, title) VALUES ('m1', 'Alien')`)
	_, err := db.Exec(`INSERT INTO reviews (id, user_id, movie_id, rating, watched_at) VALUES ('r1', 'nobody', 'm1', 5, 'x')`)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23503" {
		t.Fatalf("local review of an unknown user: %v, want a foreign-key violation", err)
	}
	exec(t, db, `INSERT INTO reviews (id, user_id, movie_id, rating, watched_at, remote_actor_url)
		VALUES ('r2', 'nobody', 'm1', 5, 'x', 'https://elsewhere.example/users/n')`)
}

// TestCaseInsensitiveNames: user names and e-mails are unique without case, as COLLATE NOCASE
// makes them on SQLite, and found without case.
func TestCaseInsensitiveNames(t *testing.T) {
	t.Parallel()
	db := migratedDB(t)
	exec(t, db, `INSERT INTO users (id, username, email, password_hash) VALUES ('u1', 'Ann', 'ann@example.org', 'x')`)
	if _, err := db.Exec(`INSERT INTO users (id, username, email, password_hash) VALUES ('u2', 'ANN', 'other@example.org', 'x')`); err == nil {
		t.Fatal("a second user named ANN was accepted")
	}
	var id string
	if err := db.Get(&id, `SELECT id FROM users WHERE username = $1`, "aNn"); err != nil || id != "u1" {
		t.Fatalf("lookup without case: %q %v", id, err)
	}
}

// TestSearchDocuments: the search tables' tsvectors match words without accents or case, by
// prefix, and rank a title match above an overview match.
func TestSearchDocuments(t *testing.T) {
	t.Parallel()
	db := migratedDB(t)
	exec(t, db, `INSERT INTO movies (id, title) VALUES ('m1', 'Amélie'), ('m2', 'Paris')`)
	exec(t, db, `INSERT INTO search_movies (movie_id, title, overview) VALUES ('m1', 'Amélie', 'A shy waitress in Paris'),
		('m2', 'Paris', 'Amelie does not appear here')`)
	var ids []string
	if err := db.Select(&ids, `SELECT movie_id FROM search_movies WHERE document @@ to_tsquery('moviesdiary_search', $1)
		ORDER BY ts_rank('{0.1, 0.2, 0.35, 1.0}', document, to_tsquery('moviesdiary_search', $1)) DESC, movie_id`, "AMEL:*"); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || ids[0] != "m1" {
		t.Fatalf("prefix search for amel: %v, want both, the title match first", ids)
	}
}

// TestReviewWritesDoNotQueueOnTheInstanceCounts: two transactions on different connections each
// write a review; the second commits while the first is still open. With one row per
// instance-wide count (before 0206) the second waited for the first's row lock on the 'all'
// count and ran into its lock_timeout; reviews of the same movie by the same user waited on the
// movie's stats and the user's counts until 0410.
func TestReviewWritesDoNotQueueOnTheInstanceCounts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, user, movie string }{
		{"another user and movie", "u2", "m2"},
		{"the same user and movie", "u1", "m1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			reviewWritesDoNotQueue(t, tc.user, tc.movie)
		})
	}
}

// reviewWritesDoNotQueue writes a review of m1 by u1 and, while it is open, one of movie by
// user on another connection whose writes go to another slot, which must commit first.
func reviewWritesDoNotQueue(t *testing.T, user, movie string) {
	ctx := context.Background()
	db := migratedDB(t)
	exec(t, db, `INSERT INTO users (id, username, email, password_hash) VALUES ('u1', 'Ann', 'ann@example.org', 'x'),
		('u2', 'Bob', 'bob@example.org', 'x')`)
	exec(t, db, `INSERT INTO movies (id, title) VALUES ('m1', 'Alien'), ('m2', 'Heat')`)
	// Two connections whose writes go to different slots (backend pids differing modulo 16).
	var conns []*sqlx.Conn
	slots := map[int]bool{}
	for len(conns) < 2 {
		c, err := db.Connx(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var slot int
		if err := c.GetContext(ctx, &slot, `SELECT review_counts_slot()`); err != nil {
			t.Fatal(err)
		}
		if !slots[slot] {
			slots[slot] = true
			conns = append(conns, c)
		}
	}
	first, err := conns[0].BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Rollback()
	if _, err := first.ExecContext(ctx, `INSERT INTO reviews (id, user_id, movie_id, rating, watched_at) VALUES
		('r1', 'u1', 'm1', 5, '2026-01-01T00:00:00.000Z')`); err != nil {
		t.Fatal(err)
	}
	second, err := conns[1].BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Rollback()
	if _, err := second.ExecContext(ctx, `SET LOCAL lock_timeout = '5s'`); err != nil {
		t.Fatal(err)
	}
	if _, err := second.ExecContext(ctx, `INSERT INTO reviews (id, user_id, movie_id, rating, watched_at) VALUES
		('r2', $1, $2, 4, '2026-01-02T00:00:00.000Z')`, user, movie); err != nil {
		t.Fatalf("the second writer waited for the first: %v", err)
	}
	if err := second.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := first.Commit(); err != nil {
		t.Fatal(err)
	}
	var all, users, movies int
	if err := db.QueryRowContext(ctx, `SELECT (SELECT sum(n) FROM review_counts WHERE scope = 'all'),
		(SELECT sum(n) FROM review_counts WHERE scope = 'user'), (SELECT sum(n) FROM movie_review_stats)`).Scan(&all, &users, &movies); err != nil ||
		all != 2 || users != 2 || movies != 2 {
		t.Fatalf("counts: all %d, users %d, movies %d (%v), want 2 of each", all, users, movies, err)
	}
}
