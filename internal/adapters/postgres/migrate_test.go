package postgres_test

import (
	"context"
	"io/fs"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/postgres/pgtest"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/migrations"
	pgmigrations "moviesdiary/migrations/postgres"
)

// TestMigrationsMirrorSQLite: every SQLite migration has a PostgreSQL twin of the same number
// and name, and nothing else is there.
func TestMigrationsMirrorSQLite(t *testing.T) {
	t.Parallel()
	names := func(f fs.FS) []string {
		m, err := fs.Glob(f, "*.up.sql")
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	lite, pg := names(migrations.FS), names(pgmigrations.FS)
	if !slices.Equal(lite, pg) {
		t.Fatalf("migrations differ:\nsqlite   %v\npostgres %v", lite, pg)
	}
	lv, err := sqlite.LatestVersion()
	if err != nil {
		t.Fatal(err)
	}
	pv, err := postgres.LatestVersion()
	if err != nil || pv != lv {
		t.Fatalf("latest PostgreSQL migration %d (%v), SQLite's %d", pv, err, lv)
	}
}

// TestMigrateEmptyDatabase applies every migration to an empty database.
func TestMigrateEmptyDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := postgres.OpenMigrated(ctx, pgtest.Empty(t), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkLatest(t, s)
	// A second run finds nothing to do.
	if err := s.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	checkLatest(t, s)
}

func checkLatest(t *testing.T, s *postgres.Store) {
	t.Helper()
	want, err := postgres.LatestVersion()
	if err != nil {
		t.Fatal(err)
	}
	v, dirty, err := s.Version(context.Background())
	if err != nil || v != want || dirty {
		t.Fatalf("schema version %d dirty=%v (%v), want %d clean", v, dirty, err, want)
	}
}

// TestConcurrentMigrations: servers and workers starting together on one empty database all
// succeed, with a clean version: the advisory lock serialises them.
func TestConcurrentMigrations(t *testing.T) {
	t.Parallel()
	checkLatest(t, openConcurrently(t, pgtest.Empty(t), 4))
}

// pgOnlyColumns are the columns PostgreSQL has on purpose and SQLite has not, as table.column,
// each with the reason.
var pgOnlyColumns = map[string]string{
	"event_queue.enqueued_xact": "the inserting transaction's id, the metrics cursor (0204): ids commit out of order here, " +
		"in order under SQLite's single writer",
	"review_counts.slot": "the counts are spread over rows, one per concurrent writing transaction, so writers do not " +
		"queue on one row lock (0206, 0410, 0420); SQLite has one writer at a time",
	"movie_review_stats.slot": "a movie's stats are spread over rows as the review counts are (0410, 0420)",
}

// TestSchemaMirrorsSQLite: the migrated PostgreSQL database has SQLite's tables with SQLite's
// columns; only the full-text indexes differ (FTS5 tables there, a tsvector column here), and
// the columns pgOnlyColumns lists.
func TestSchemaMirrorsSQLite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lite := sqlitetest.Open(t, filepath.Join(t.TempDir(), "schema.db"))
	liteDB, err := sqlx.Open("sqlite3", "file:"+lite.Path()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer liteDB.Close()
	want := map[string][]string{}
	var tables []string
	if err := liteDB.SelectContext(ctx, &tables, `SELECT name FROM sqlite_schema WHERE type = 'table'
		AND name NOT LIKE 'sqlite_%' AND name NOT GLOB '*_fts*'`); err != nil {
		t.Fatal(err)
	}
	if len(tables) < 30 {
		t.Fatalf("SQLite has %d tables: %v", len(tables), tables)
	}
	for _, table := range tables {
		var cols []string
		if err := liteDB.SelectContext(ctx, &cols, `SELECT name FROM pragma_table_info(?)`, table); err != nil {
			t.Fatal(err)
		}
		sort.Strings(cols)
		want[table] = cols
	}

	pg, err := sqlx.Open("pgx", migratedURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	var rows []struct {
		Table  string `db:"table_name"`
		Column string `db:"column_name"`
	}
	if err := pg.SelectContext(ctx, &rows, `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = 'public' AND table_name NOT IN (SELECT viewname FROM pg_views WHERE schemaname = 'public')`); err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	unseen := maps.Clone(pgOnlyColumns)
	for _, r := range rows {
		if r.Column == "document" && strings.HasPrefix(r.Table, "search_") {
			continue // the tsvector that stands for SQLite's FTS5 table
		}
		if _, ok := pgOnlyColumns[r.Table+"."+r.Column]; ok {
			delete(unseen, r.Table+"."+r.Column)
			continue
		}
		got[r.Table] = append(got[r.Table], r.Column)
	}
	for table := range got {
		sort.Strings(got[table])
	}
	for table, cols := range want {
		if !slices.Equal(got[table], cols) {
			t.Errorf("table %s: PostgreSQL has columns %v, SQLite %v", table, got[table], cols)
		}
	}
	for table := range got {
		if _, ok := want[table]; !ok {
			t.Errorf("table %s is in PostgreSQL only", table)
		}
	}
	for col := range unseen {
		t.Errorf("column %s is allowed in PostgreSQL only but is missing there", col)
	}
}
