package pgtest_test

import (
	"context"
	"database/sql"
	"os"
	"sync/atomic"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"moviesdiary/internal/adapters/postgres/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func open(t *testing.T, url string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestEmptyDatabasesAreSeparate: each test's database is its own, and the server is tuned for
// tests, not durability.
func TestEmptyDatabasesAreSeparate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b := open(t, pgtest.Empty(t)), open(t, pgtest.Empty(t))
	if _, err := a.ExecContext(ctx, `CREATE TABLE only_in_a (x int)`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := b.QueryRowContext(ctx, `SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_a'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the other database sees the table: %d tables, %v", n, err)
	}
	var fsync, listen string
	if err := a.QueryRowContext(ctx, `SELECT current_setting('fsync'), current_setting('listen_addresses')`).Scan(&fsync, &listen); err != nil {
		t.Fatal(err)
	}
	if fsync != "off" || listen != "" {
		t.Fatalf("fsync %q, listen_addresses %q; want a throwaway cluster without fsync or TCP", fsync, listen)
	}
}

var prepared atomic.Int32

func prepare(ctx context.Context, url string) error {
	prepared.Add(1)
	db, err := sql.Open("pgx", url)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, `CREATE TABLE from_template (x int); INSERT INTO from_template VALUES (1)`)
	return err
}

// TestFromTemplate: the template is prepared once, and every copy starts from it on its own.
func TestFromTemplate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for range 3 {
		db := open(t, pgtest.FromTemplate(t, "pgtest_template", prepare))
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM from_template`).Scan(&n); err != nil || n != 1 {
			t.Fatalf("copy holds %d rows (%v), want the template's one", n, err)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO from_template VALUES (2)`); err != nil {
			t.Fatal(err)
		}
	}
	if got := prepared.Load(); got != 1 {
		t.Fatalf("template prepared %d times, want once", got)
	}
}
