package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// legacyScale is the size of a generated original database: per unit, one user with 2,000
// reviews of 400 movies (20 credits each, of 800 people), 300 watchlist entries, 100 follows
// each way, 20 wrap-ups and 4,000 outbox rows (the original never deletes done rows).
type legacyScale struct{ users int }

// generateLegacy writes an original database of the given scale (legacySchema, WAL) at path.
func generateLegacy(tb testing.TB, path string, sc legacyScale) {
	tb.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_synchronous=OFF")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	u := sc.users
	n := func(name string, count int) string {
		return fmt.Sprintf(`WITH RECURSIVE %s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM %s WHERE i < %d) `, name, name, count)
	}
	// uuid builds a UUID-shaped id from a number and a tag digit.
	uuid := func(tag, expr string) string {
		return `printf('%08x-0000-4000-8` + tag + `00-%012x', ` + expr + `, ` + expr + `)`
	}
	stmts := []string{
		legacySchema,
		`INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) ` + n("v", 29) +
			`SELECT i, 'm', 1, x'00', 1 FROM v UNION ALL SELECT 100, 'q', 1, x'00', 1`,
		`INSERT INTO users (id, email, username, password_hash, created_at, role, bio, display_name) ` + n("k", u) +
			`SELECT ` + uuid("1", "i") + `, 'user' || i || '@example.org', 'user' || i,
			'$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA', '2024-03-01T10:20:30.123456789+00:00',
			iif(i = 1, 'admin', 'standard'), 'bio ' || i, 'User ' || i FROM k`,
		`INSERT INTO user_profile_fields (id, user_id, name, value, position) ` + n("k", u*2) +
			`SELECT 'f' || i, ` + uuid("1", "(i + 1) / 2") + `, 'field' || i, 'value', i FROM k`,
		`INSERT INTO user_settings (user_id, federate_goals) ` + n("k", u) + `SELECT ` + uuid("1", "i") + `, 1 FROM k`,
		`INSERT INTO ap_local_actors (user_id, public_key, private_key, created_at) ` + n("k", u) +
			`SELECT ` + uuid("1", "i") + `, printf('%0500d', i), printf('%01700d', i), '2024-03-01 10:20:31' FROM k`,
		`INSERT INTO movies (id, external_metadata_id, title, release_year, director, poster_path) ` + n("k", u*400) +
			`SELECT ` + uuid("2", "i") + `, 'tmdb:' || i, 'Movie ' || i, 1950 + i % 70, 'Director ' || (i % 300),
			'posters/' || i || '.webp' FROM k`,
		`INSERT INTO movie_profiles (movie_id, tmdb_id, overview, runtime_minutes, original_language, enriched_at) ` + n("k", u*400) +
			`SELECT ` + uuid("2", "i") + `, i, printf('%0300d', i), 90 + i % 60, 'en', '2024-03-03 09:00:00' FROM k`,
		`INSERT INTO movie_genres (movie_id, tmdb_id, name) ` + n("k", u*400*2) +
			`SELECT ` + uuid("2", "(i + 1) / 2") + `, i % 2, iif(i % 2 = 0, 'Drama', 'Action') FROM k`,
		`INSERT INTO persons (id, external_id, tmdb_person_id, name, known_for_department, enriched_at) ` + n("k", u*800) +
			`SELECT ` + uuid("3", "i") + `, 'tmdb:' || i, i, 'Person ' || i, 'Acting', '2024-03-03 09:00:00' FROM k`,
		`INSERT INTO movie_cast (movie_id, tmdb_person_id, name, character, billing_order) ` + n("k", u*400*15) +
			`SELECT ` + uuid("2", "(i - 1) / 15 + 1") + `, (i * 7) % ` + fmt.Sprint(u*800) + ` + 1, 'P', 'Role ' || i, i % 15 FROM k WHERE 1
			ON CONFLICT DO NOTHING`,
		`INSERT INTO movie_crew (movie_id, tmdb_person_id, name, job, department) ` + n("k", u*400*5) +
			`SELECT ` + uuid("2", "(i - 1) / 5 + 1") + `, (i * 13) % ` + fmt.Sprint(u*800) + ` + 1, 'P', 'Job ' || (i % 5), 'Crew' FROM k WHERE 1
			ON CONFLICT DO NOTHING`,
		`INSERT INTO reviews (id, movie_id, user_id, rating, comment, watched_at, created_at, watch_medium) ` + n("k", u*2000) +
			`SELECT ` + uuid("4", "i") + `, ` + uuid("2", "i % "+fmt.Sprint(u*400)+" + 1") + `, ` + uuid("1", "i % "+fmt.Sprint(u)+" + 1") + `,
			1 + i % 5, 'A comment of some length about movie number ' || i, datetime(1700000000 + i * 3600, 'unixepoch'),
			datetime(1700000000 + i * 3600 + 60, 'unixepoch'), 'streaming' FROM k`,
		`INSERT INTO watchlist_entries (id, user_id, movie_id, added_at) ` + n("k", u*300) +
			`SELECT ` + uuid("5", "i") + `, ` + uuid("1", "i % "+fmt.Sprint(u)+" + 1") + `, ` + uuid("2", "(i - 1) / "+fmt.Sprint(u)+" + 1") + `,
			'2024-03-04 12:00:00' FROM k`,
		`INSERT INTO ap_remote_actors (url, handle, inbox_url, fetched_at) ` + n("k", u*100) +
			`SELECT 'https://r' || i || '.example/users/a', '@a@r' || i || '.example', 'https://r' || i || '.example/inbox',
			'2024-03-01 00:00:00' FROM k`,
		`INSERT INTO ap_following (local_user_id, remote_actor_url, created_at, follow_activity_id, status) ` + n("k", u*100) +
			`SELECT ` + uuid("1", "i % "+fmt.Sprint(u)+" + 1") + `, 'https://r' || i || '.example/users/a', '2024-03-01 01:00:00',
			'https://diary.example/activities/' || i, 'accepted' FROM k`,
		`INSERT INTO ap_followers (local_user_id, remote_actor_url, status, created_at) ` + n("k", u*100) +
			`SELECT ` + uuid("1", "i % "+fmt.Sprint(u)+" + 1") + `, 'https://r' || i || '.example/users/a', 'accepted',
			'2024-03-01 01:00:00' FROM k`,
		`INSERT INTO wrap_up_records (id, user_id, start_date, end_date, status, report_json, created_at, completed_at) ` + n("k", u*20) +
			`SELECT ` + uuid("6", "i") + `, ` + uuid("1", "i % "+fmt.Sprint(u)+" + 1") + `, (2000 + i / ` + fmt.Sprint(u) + `) || '-01-01',
			(2000 + i / ` + fmt.Sprint(u) + `) || '-12-31', 'ready', printf('{"total_movies":%d,"pad":"%0800d"}', i, i),
			'2025-01-01 00:00:00', '2025-01-01 00:01:00' FROM k`,
		`INSERT INTO goals (id, user_id, year, target_count) ` + n("k", u) + `SELECT ` + uuid("7", "i") + `, ` + uuid("1", "i") + `, 2025, 100 FROM k`,
		`INSERT INTO event_queue (event_type, payload, status, attempts, created_at, next_attempt_at) ` + n("k", u*4000) +
			`SELECT 'ReviewLogged', printf('{"type":"ReviewLogged","data":{"review_id":"%s","pad":"%0150d"}}', i, i),
			CASE WHEN i % 1000 = 0 THEN 'processing' WHEN i % 997 = 0 THEN 'dead_lettered' WHEN i % 500 = 0 THEN 'pending' ELSE 'done' END,
			0, '2025-01-02T03:04:05Z', '2025-01-02T03:04:05Z' FROM k`,
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			tb.Fatalf("generate: %v\n%s", err, strings.SplitN(s, "\n", 2)[0])
		}
	}
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		tb.Fatal(err)
	}
}

func copyFile(tb testing.TB, from, to string) {
	tb.Helper()
	in, err := os.Open(from)
	if err != nil {
		tb.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		tb.Fatal(err)
	}
	if err := out.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkAdopt measures a first start on a generated original database: backup, conversion
// and the migrations above adoptVersion. ADOPT_USERS sets the scale (default 10: 20,000
// reviews, 4,000 movies, 80,000 credits, 40,000 outbox rows).
//
//	go test -tags sqlite_fts5 -run '^$' -bench BenchmarkAdopt -benchtime 3x ./internal/adapters/sqlite/
func BenchmarkAdopt(b *testing.B) {
	users := 10
	if v := os.Getenv("ADOPT_USERS"); v != "" {
		if _, err := fmt.Sscan(v, &users); err != nil {
			b.Fatal(err)
		}
	}
	dir := b.TempDir()
	fixture := filepath.Join(dir, "fixture.db")
	generateLegacy(b, fixture, legacyScale{users: users})
	st, err := os.Stat(fixture)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	log := discard()
	if os.Getenv("ADOPT_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	var cpu time.Duration // user + system time of the adoptions, which a loaded machine does not inflate
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		path := filepath.Join(dir, fmt.Sprintf("run%d.db", i))
		copyFile(b, fixture, path)
		s, err := Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		before := cpuTime(b)
		b.StartTimer()
		if err := s.Migrate(ctx, log); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu += cpuTime(b) - before
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(st.Size())/(1<<20), "MB")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}

// cpuTime is the process's user and system time so far.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestAdoptGeneratedDatabase adopts a small generated database and checks the counts carried,
// so the benchmark's generator stays a valid original.
func TestAdoptGeneratedDatabase(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "gen.db")
	generateLegacy(t, path, legacyScale{users: 2})
	s := openStore(t, path)
	if err := s.Migrate(context.Background(), testLogger(t)); err != nil {
		t.Fatal(err)
	}
	db, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	wantRows(t, db, `SELECT (SELECT count(*) FROM users), (SELECT count(*) FROM movies), (SELECT count(*) FROM reviews),
		(SELECT count(*) FROM watchlist), (SELECT count(*) FROM follows), (SELECT count(*) FROM wrapups),
		(SELECT count(*) FROM event_queue WHERE event_id IS NOT NULL)`,
		[]string{"2", "800", "4000", "600", "400", "40", "8001"})
	// Every credit carried: the cast and crew tables are gone.
	wantRows(t, db, `SELECT count(*) > 10000, (SELECT count(*) FROM sqlite_master WHERE name IN ('legacy_movie_cast',
		'legacy_movie_crew', 'legacy_reviews', 'legacy_users', 'legacy_movies')) FROM movie_credits`, []string{"1", "0"})
}
