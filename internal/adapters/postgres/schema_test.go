package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"moviesdiary/internal/delivery/deliverytest"

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

// begin starts a transaction on db that the test's end rolls back unless it was ended.
func begin(t *testing.T, db *sqlx.DB) *sqlx.Tx {
	t.Helper()
	tx, err := db.BeginTxx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback() })
	return tx
}

// waitOnAdvisoryLock waits until one backend running a statement LIKE query waits for an
// advisory lock.
func waitOnAdvisoryLock(t *testing.T, db *sqlx.DB, what, query string) {
	t.Helper()
	deliverytest.Eventually(t, 30*time.Second, what, func() bool {
		var waiting int
		err := db.GetContext(context.Background(), &waiting, `SELECT count(*) FROM pg_stat_activity
			WHERE wait_event_type = 'Lock' AND wait_event = 'advisory' AND query LIKE $1`, query)
		return err == nil && waiting == 1
	})
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

// TestReviewWritesDoNotQueueOnTheInstanceCounts: more transactions than 0206's 16 slots each
// write a review of one movie by one user, and every one commits while all the others are still
// open. With one row per instance-wide count (before 0206) the second waited for the first's row
// lock on the 'all' count and ran into its lock_timeout; reviews of the same movie by the same
// user waited on the movie's stats and the user's counts until 0410; two connections whose pids
// were equal modulo 16 waited on each other until 0420 gave each transaction a slot of its own.
// One transaction writing several reviews, and changing one, keeps to one slot.
func TestReviewWritesDoNotQueueOnTheInstanceCounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := migratedDB(t)
	exec(t, db, `INSERT INTO users (id, username, email, password_hash) VALUES ('u1', 'Ann', 'ann@example.org', 'x')`)
	exec(t, db, `INSERT INTO movies (id, title) VALUES ('m1', 'Alien'), ('m2', 'Heat')`)
	const writers = 20 // more than 16: two of them shared a slot when the slot was the pid's
	var txs []*sqlx.Tx
	for i := range writers {
		tx := begin(t, db)
		txs = append(txs, tx)
		if _, err := tx.ExecContext(ctx, `SET LOCAL lock_timeout = '5s'`); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO reviews (id, user_id, movie_id, rating, watched_at) VALUES
			($1, 'u1', 'm1', 5, '2026-01-01T00:00:00.000Z')`, fmt.Sprintf("r%d", i)); err != nil {
			t.Fatalf("writer %d waited for another: %v", i, err)
		}
	}
	// The last writer logs two more reviews and moves one to another movie: still one slot.
	last := txs[writers-1]
	if _, err := last.ExecContext(ctx, `INSERT INTO reviews (id, user_id, movie_id, rating, watched_at) VALUES
		('x1', 'u1', 'm2', 3, '2026-01-02T00:00:00.000Z'), ('x2', 'u1', 'm1', 2, '2026-01-03T00:00:00.000Z')`); err != nil {
		t.Fatal(err)
	}
	if _, err := last.ExecContext(ctx, `UPDATE reviews SET movie_id = 'm2', rating = 4 WHERE id = 'x2'`); err != nil {
		t.Fatal(err)
	}
	var held int
	if err := last.GetContext(ctx, &held, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'
		AND classid = 1835295603 AND objsubid = 2 AND pid = pg_backend_pid()`); err != nil || held != 1 {
		t.Fatalf("one transaction holds %d count slots (%v), want 1", held, err)
	}
	for i, tx := range txs {
		if err := tx.Commit(); err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
	}
	var all, users, m1, m2, slots int
	if err := db.QueryRowContext(ctx, `SELECT (SELECT sum(n) FROM review_counts WHERE scope = 'all'),
		(SELECT sum(n) FROM review_counts WHERE scope = 'user' AND key = 'u1'),
		(SELECT sum(n) FROM movie_review_stats WHERE movie_id = 'm1'), (SELECT sum(n) FROM movie_review_stats WHERE movie_id = 'm2'),
		(SELECT count(*) FROM movie_review_stats WHERE movie_id = 'm1')`).Scan(&all, &users, &m1, &m2, &slots); err != nil ||
		all != writers+2 || users != writers+2 || m1 != writers || m2 != 2 {
		t.Fatalf("counts: all %d, user %d, m1 %d, m2 %d (%v), want %d, %d, %d, 2", all, users, m1, m2, err, writers+2, writers+2, writers)
	}
	if slots != writers {
		t.Errorf("m1's stats are in %d rows, want one per concurrent writer (%d)", slots, writers)
	}
}

// TestFeedCountsLockSeesAFollowAcceptedWhileItWaited: lock_feed_counts (0420) waits for a follow
// being accepted (which holds the author's followers exclusively) and then locks the new
// follower's count too. Were its upsert in the lock's statement, its snapshot would predate the
// follow, and the review's trigger would take that count later, out of key order.
func TestFeedCountsLockSeesAFollowAcceptedWhileItWaited(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := migratedDB(t)
	exec(t, db, `INSERT INTO users (id, username, email, password_hash) VALUES ('author', 'Ann', 'ann@example.org', 'x'),
		('fan', 'Bob', 'bob@example.org', 'x')`)
	// The fan's count is there already (it follows others), so a lock on it shows to another
	// transaction.
	exec(t, db, `INSERT INTO review_counts (scope, key, n) VALUES ('following', 'fan', 0)`)
	const key = "followers local:author"
	follow := begin(t, db)
	if _, err := follow.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, key); err != nil {
		t.Fatal(err)
	}
	if _, err := follow.ExecContext(ctx, `INSERT INTO follows (follower_kind, follower_id, target_kind, target_id, status)
		VALUES ('local', 'fan', 'local', 'author', 'accepted')`); err != nil {
		t.Fatal(err)
	}
	review := begin(t, db)
	locked := make(chan error, 1)
	go func() {
		_, err := review.ExecContext(ctx, `SELECT lock_feed_counts($1, 'author', 'r1')`, key)
		locked <- err
	}()
	// The review's call waits for the follow's lock.
	waitOnAdvisoryLock(t, db, "the review waiting for the followers' lock", "%lock_feed_counts%")
	if err := follow.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-locked; err != nil {
		t.Fatal(err)
	}
	other := begin(t, db)
	_, err := other.ExecContext(ctx, `SELECT n FROM review_counts WHERE scope = 'following' AND key = 'fan' FOR UPDATE NOWAIT`)
	if err == nil {
		t.Fatal("the new follower's count is not locked by the review: its upsert did not see the follow accepted while it waited")
	}
	if pgErr := (*pgconn.PgError)(nil); !errors.As(err, &pgErr) || pgErr.Code != "55P03" {
		t.Fatalf("locking the count: %v, want lock_not_available", err)
	}
}

// TestReviewWritesWaitForASlotWhenAllAreTaken: with every one of 0420's 64 count slots held by
// other transactions, a review's write waits for the slot of its pid (it neither fails nor writes
// a slot another transaction holds) and goes on once that slot's holder ends.
func TestReviewWritesWaitForASlotWhenAllAreTaken(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := migratedDB(t)
	exec(t, db, `INSERT INTO users (id, username, email, password_hash) VALUES ('u1', 'Ann', 'ann@example.org', 'x')`)
	exec(t, db, `INSERT INTO movies (id, title) VALUES ('m1', 'Alien')`)
	holder := begin(t, db)
	if _, err := holder.ExecContext(ctx, `SELECT pg_advisory_xact_lock(1835295603, s) FROM generate_series(0, 63) AS s`); err != nil {
		t.Fatal(err)
	}
	writer := begin(t, db)
	wrote := make(chan error, 1)
	go func() {
		_, err := writer.ExecContext(ctx, `INSERT INTO reviews (id, user_id, movie_id, rating, watched_at) VALUES
			('r1', 'u1', 'm1', 5, '2026-01-01T00:00:00.000Z')`)
		wrote <- err
	}()
	waitOnAdvisoryLock(t, db, "the review waiting for a count slot", "INSERT INTO reviews%")
	select {
	case err := <-wrote:
		t.Fatalf("the review was written while every slot was held (%v)", err)
	default:
	}
	if err := holder.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	if err := writer.Commit(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.GetContext(ctx, &n, `SELECT sum(n) FROM movie_review_stats WHERE movie_id = 'm1'`); err != nil || n != 1 {
		t.Fatalf("m1's stats: %d (%v), want 1", n, err)
	}
}
