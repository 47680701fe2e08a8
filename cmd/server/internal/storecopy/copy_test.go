package storecopy_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"moviesdiary/cmd/server/internal/storecopy"
	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/postgres/pgtest"
	"moviesdiary/internal/adapters/postgres/postgrestest"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
	"moviesdiary/internal/usecase/search"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// sqliteOnly are the source's tables that have no PostgreSQL twin by design.
var sqliteOnly = []string{"schema_migrations", "sqlite_sequence", "legacy_watch_dedup"}

// populated is a new SQLite instance written by populate, and a new empty PostgreSQL database.
func populated(t *testing.T) (path, url string, in instance) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "moviesdiary.db")
	return path, pgtest.Empty(t), populate(t, path)
}

// TestCopyPopulatedInstance moves a broad instance and checks the destination row for row: every
// table both schemas have holds the same rows (derived tables included), the PostgreSQL queue
// claims exactly the rows that were pending, new rows get fresh ids, search finds copied movies
// and the triggers maintain the derived tables again.
func TestCopyPopulatedInstance(t *testing.T) {
	ctx := context.Background()
	path, url, in := populated(t)
	report, err := storecopy.Copy(ctx, path, url, storecopy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src, dst := openSQLite(t, path), openPG(t, url)

	tables := sharedTables(t, src, dst)
	var copied []string
	for _, c := range report.Counts {
		copied = append(copied, c.Table)
	}
	slices.Sort(copied)
	if !slices.Equal(copied, tables) {
		t.Fatalf("copied tables %v, want every shared table %v", copied, tables)
	}
	var empty []string
	for _, c := range report.Counts {
		cols := sharedColumns(t, src, dst, c.Table)
		want, got := dump(t, src, c.Table, cols), dump(t, dst, c.Table, cols)
		if int64(len(want)) != c.Rows {
			t.Errorf("%s: reported %d rows, the source has %d", c.Table, c.Rows, len(want))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s differs: %s", c.Table, firstDifference(want, got))
		}
		if len(want) == 0 {
			empty = append(empty, c.Table)
		}
	}
	if len(empty) > 0 {
		t.Logf("tables the fixture left empty: %v", empty)
	}
	for _, table := range []string{"users", "reviews", "review_counts", "following_feed", "movie_review_stats", "follows",
		"remote_actors", "watchlist", "goals", "wrapups", "import_sessions", "import_rows", "webhook_tokens", "watch_events",
		"event_queue", "processed_events", "ap_activities", "inbox_activities", "search_movies", "search_people", "storage_probe"} {
		if slices.Contains(empty, table) {
			t.Errorf("the fixture wrote no %s rows: the test would not see them copied", table)
		}
	}
	for _, name := range sqliteOnly[1:] {
		if _, ok := report.Skipped[name]; !ok && tableExists(t, src, name) {
			t.Errorf("%s is not reported skipped", name)
		}
	}

	s, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	// The outbox: exactly the pending rows are claimed; the done, dead-lettered and claimed ones
	// are not, and the ledger still says the done handler is done.
	q := s.Queue(outbox.QueueConfig{Logger: slog.New(slog.DiscardHandler)})
	msgs, err := q.Claim(ctx, 10000)
	if err != nil {
		t.Fatal(err)
	}
	var claimed []string
	for _, m := range msgs {
		claimed = append(claimed, m.EventID)
	}
	slices.Sort(claimed)
	slices.Sort(in.pending)
	if len(in.pending) == 0 || !slices.Equal(claimed, in.pending) {
		t.Errorf("the PostgreSQL queue claimed %d rows %v, want the %d pending %v", len(claimed), claimed, len(in.pending), in.pending)
	}

	// New rows: ids past the copied ones, the triggers maintaining the derived tables again.
	var maxEvent int64
	if err := dst.QueryRow(`SELECT max(id) FROM event_queue`).Scan(&maxEvent); err != nil {
		t.Fatal(err)
	}
	ext := "tmdb:900"
	r := domain.Review{ID: uuid.New(), UserID: in.alice.ID, Rating: 4, WatchedAt: t0.AddDate(0, 6, 0), CreatedAt: t0, UpdatedAt: t0}
	logged, err := s.LogReview(ctx, r, domain.Movie{ExternalID: &ext, Title: "Stalker Again", ReleaseYear: 2026}, nil)
	if err != nil {
		t.Fatalf("a new review after the copy: %v", err)
	}
	if err := s.IndexMovie(ctx, logged.Movie.ID, false); err != nil {
		t.Fatalf("index a new movie after the copy: %v", err)
	}
	var newEvents int
	if err := dst.QueryRow(`SELECT count(*) FROM event_queue WHERE id > $1`, maxEvent).Scan(&newEvents); err != nil || newEvents == 0 {
		t.Errorf("the new review's events: %d rows past id %d, %v", newEvents, maxEvent, err)
	}
	feed, err := s.FollowingFeed(ctx, in.bob.ID, domain.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(feed.Items) == 0 || feed.Items[0].Review.ID != r.ID {
		var ids []uuid.UUID
		for _, e := range feed.Items {
			ids = append(ids, e.Review.ID)
		}
		t.Errorf("bob's following feed %v does not start with alice's new review %v: the triggers are off", ids, r.ID)
	}
	if feed.Total != len(feed.Items) {
		t.Errorf("bob's feed counts %d, holds %d: review_counts is off", feed.Total, len(feed.Items))
	}

	// Search: the copied index answers (the tsvector columns are generated from the copied rows).
	hits, err := s.SearchMovies(ctx, search.Query{Text: "solaris", Page: domain.Page{Limit: 10}})
	if err != nil || len(hits.Items) != 1 || hits.Items[0].ID != in.movie.ID {
		t.Errorf("search for a copied movie: %+v, %v", hits.Items, err)
	}
	people, err := s.SearchPeople(ctx, search.Query{Text: "banionis", Page: domain.Page{Limit: 10}})
	if err != nil || len(people.Items) != 1 {
		t.Errorf("search for a copied person: %+v, %v", people.Items, err)
	}
}

// TestCopyRefusesNonEmptyDestination: a destination with a row anywhere is left as it was.
func TestCopyRefusesNonEmptyDestination(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "moviesdiary.db")
	populate(t, path)
	url := postgrestest.URL(t)
	s, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.BlockDomain(ctx, "already.example", "an earlier instance"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = storecopy.Copy(ctx, path, url, storecopy.Options{})
	if !errors.Is(err, storecopy.ErrNotEmpty) || !strings.Contains(err.Error(), "domain_blocks") {
		t.Fatalf("copy into a database with a domain block: %v, want ErrNotEmpty naming domain_blocks", err)
	}
	untouched(t, openPG(t, url), "domain_blocks")
}

// TestCopyRefusesSourceInUse: with a server or worker on the SQLite file nothing happens, the
// destination not even migrated.
func TestCopyRefusesSourceInUse(t *testing.T) {
	ctx := context.Background()
	path, url, _ := populated(t)
	s, err := sqlite.OpenMigrated(ctx, path, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = storecopy.Copy(ctx, path, url, storecopy.Options{})
	if !errors.Is(err, sqlite.ErrInUse) {
		t.Fatalf("copy of a database in use: %v, want sqlite.ErrInUse", err)
	}
	var tables int
	if err := openPG(t, url).QueryRow(`SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`).Scan(&tables); err != nil || tables != 0 {
		t.Errorf("the destination has %d tables (%v), want it untouched", tables, err)
	}
}

// TestCopyRefusesSourceNotCurrent: a missing file, a source at an older schema version or a
// dirty one is refused with what to do.
func TestCopyRefusesSourceNotCurrent(t *testing.T) {
	ctx := context.Background()
	path, url, _ := populated(t)
	var version int
	db := openSQLite(t, path)
	if err := db.QueryRow(`SELECT version FROM schema_migrations`).Scan(&version); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := storecopy.Copy(ctx, path+".missing", url, storecopy.Options{}); !errors.Is(err, sqlite.ErrNoDatabase) {
		t.Errorf("a missing source: %v, want sqlite.ErrNoDatabase", err)
	}
	for _, c := range []struct {
		update, want string
	}{
		{`UPDATE schema_migrations SET version = 20`, "start the current server once to migrate it"},
		{`UPDATE schema_migrations SET dirty = 1`, "is dirty"},
	} {
		execSQLite(t, path, c.update)
		_, err := storecopy.Copy(ctx, path, url, storecopy.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("after %s: %v, want %q", c.update, err, c.want)
		}
		execSQLite(t, path, `UPDATE schema_migrations SET version = ?, dirty = 0`, version)
	}
}

// TestCopyFailureLeavesDestinationEmpty: a value that cannot be converted, or that PostgreSQL
// refuses, in a table copied after others rolls the whole copy back, triggers included.
func TestCopyFailureLeavesDestinationEmpty(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name, corrupt, want string
	}{
		{"conversion", `UPDATE user_settings SET federate_goals = 2`, "user_settings.federate_goals"},
		{"postgres", `UPDATE wrapups SET report = 'a' || char(0) || 'b' WHERE report IS NOT NULL`, "copy wrapups"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path, url, _ := populated(t)
			execSQLite(t, path, c.corrupt)
			_, err := storecopy.Copy(ctx, path, url, storecopy.Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("copy: %v, want an error about %s", err, c.want)
			}
			dst := openPG(t, url)
			untouched(t, dst)
			var disabled int
			if err := dst.QueryRow(`SELECT count(*) FROM pg_trigger WHERE tgenabled = 'D'`).Scan(&disabled); err != nil || disabled != 0 {
				t.Errorf("%d triggers left disabled (%v)", disabled, err)
			}
		})
	}
}

// TestCopyDryRun copies and verifies, then leaves the destination empty.
func TestCopyDryRun(t *testing.T) {
	ctx := context.Background()
	path, url, _ := populated(t)
	report, err := storecopy.Copy(ctx, path, url, storecopy.Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, c := range report.Counts {
		total += c.Rows
	}
	if total == 0 {
		t.Error("the dry run copied nothing")
	}
	untouched(t, openPG(t, url))
	if _, err := storecopy.Copy(ctx, path, url, storecopy.Options{}); err != nil {
		t.Errorf("the copy after a dry run: %v", err)
	}
}

func openSQLite(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// execSQLite runs q on the database at path and closes it again.
func execSQLite(t *testing.T, path, q string, args ...any) {
	t.Helper()
	db := openSQLite(t, path)
	defer db.Close()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatal(err)
	}
}

func openPG(t *testing.T, url string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func strs(t *testing.T, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// sharedTables are the tables both databases have but the migrations' version table, found
// independently of the code under test.
func sharedTables(t *testing.T, src, dst *sql.DB) []string {
	pg := strs(t, dst, `SELECT tablename FROM pg_tables WHERE schemaname = current_schema()`)
	var both []string
	for _, name := range strs(t, src, `SELECT name FROM sqlite_master WHERE type = 'table'`) {
		if slices.Contains(pg, name) && name != "schema_migrations" {
			both = append(both, name)
		}
	}
	return both
}

// sharedColumns are table's columns in both databases, PostgreSQL's generated ones left out.
func sharedColumns(t *testing.T, src, dst *sql.DB, table string) []string {
	pg := strs(t, dst, `SELECT column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = $1 AND is_generated = 'NEVER'`, table)
	var both []string
	for _, c := range strs(t, src, `SELECT name FROM pragma_table_info(?)`, table) {
		if slices.Contains(pg, c) {
			both = append(both, c)
		}
	}
	return both
}

func tableExists(t *testing.T, db *sql.DB, name string) bool {
	return len(strs(t, db, `SELECT name FROM sqlite_master WHERE name = ?`, name)) == 1
}

// dump is every row of table as a line of its normalised values, sorted: booleans as 0 and 1,
// text and blobs quoted alike, NULL as NULL.
func dump(t *testing.T, db *sql.DB, table string, cols []string) []string {
	t.Helper()
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = `"` + c + `"`
	}
	rows, err := db.Query(`SELECT ` + strings.Join(quoted, ", ") + ` FROM "` + table + `"`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out []string
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		line := make([]string, len(cols))
		for i, v := range vals {
			switch x := v.(type) {
			case nil:
				line[i] = "NULL"
			case bool:
				line[i] = map[bool]string{false: "0", true: "1"}[x]
			case []byte:
				// A blob, or text SQLite keeps as a blob (the outbox writes payloads as bytes).
				line[i] = fmt.Sprintf("%q", x)
			case time.Time:
				t.Fatalf("%s.%s: a time value: the dump would not compare it", table, cols[i])
			case string:
				line[i] = fmt.Sprintf("%q", x)
			default:
				line[i] = fmt.Sprint(x)
			}
			line[i] = cols[i] + "=" + line[i]
		}
		out = append(out, strings.Join(line, " "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// rowCounts is the number of rows of every non-empty table of the PostgreSQL database (the
// migration version table aside).
func rowCounts(t *testing.T, db *sql.DB) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for _, table := range strs(t, db, `SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'schema_migrations'`) {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM "` + table + `"`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			counts[table] = n
		}
	}
	return counts
}

// untouched fails the test unless db holds what a migrated database holds (the rows the
// migrations seed) and one more row in each of extra.
func untouched(t *testing.T, db *sql.DB, extra ...string) {
	t.Helper()
	want := rowCounts(t, openPG(t, postgrestest.URL(t)))
	for _, table := range extra {
		want[table]++
	}
	if got := rowCounts(t, db); !maps.Equal(got, want) {
		t.Errorf("the destination holds %v, want %v", got, want)
	}
}

// firstDifference describes the first row where the sorted dumps want and got differ.
func firstDifference(want, got []string) string {
	for i := range max(len(want), len(got)) {
		switch {
		case i >= len(got):
			return fmt.Sprintf("the destination lacks %s", want[i])
		case i >= len(want):
			return fmt.Sprintf("the destination has an extra %s", got[i])
		case want[i] != got[i]:
			return fmt.Sprintf("row %d: source %s, destination %s", i, want[i], got[i])
		}
	}
	return "no difference"
}

// TestCopyColumnsOnOneSide: a column only PostgreSQL has takes its default (as event_queue's
// enqueued_xact of migration 0204 will), and a column only SQLite has stops the copy before
// anything is written, since its values would be lost.
func TestCopyColumnsOnOneSide(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "moviesdiary.db")
	in := populate(t, path)
	url := postgrestest.URL(t)
	dst := openPG(t, url)
	if _, err := dst.Exec(`ALTER TABLE event_queue ADD COLUMN pg_only bigint NOT NULL DEFAULT 7`); err != nil {
		t.Fatal(err)
	}
	execSQLite(t, path, `ALTER TABLE users ADD COLUMN shoe_size INTEGER`)
	_, err := storecopy.Copy(ctx, path, url, storecopy.Options{})
	if err == nil || !strings.Contains(err.Error(), "users.shoe_size has no PostgreSQL twin") {
		t.Fatalf("copy with a SQLite-only column: %v, want it refused naming users.shoe_size", err)
	}
	untouched(t, dst)

	execSQLite(t, path, `ALTER TABLE users DROP COLUMN shoe_size`)
	if _, err := storecopy.Copy(ctx, path, url, storecopy.Options{}); err != nil {
		t.Fatal(err)
	}
	var rows, sevens int
	if err := dst.QueryRow(`SELECT count(*), count(*) FILTER (WHERE pg_only = 7) FROM event_queue`).Scan(&rows, &sevens); err != nil {
		t.Fatal(err)
	}
	if rows == 0 || sevens != rows || rows < len(in.pending) {
		t.Errorf("event_queue: %d rows, %d with the PostgreSQL-only column's default", rows, sevens)
	}
}
