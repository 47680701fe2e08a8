package postgres_test

import (
	"context"
	"database/sql"
	"log/slog"
	"sync"
	"testing"

	"github.com/golang-migrate/migrate/v4"
	mpgx "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/golang-migrate/migrate/v4/source/iofs"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/postgres/pgtest"
	"moviesdiary/migrations/migrationstest"
	pgmigrations "moviesdiary/migrations/postgres"
)

// leftDirty is a database a stop inside the latest migration left behind: every migration
// before it applied, the latest's version marked dirty and its work undone. It returns the
// database's URL, a connection to it and the latest migration's text as the store runs it.
func leftDirty(t *testing.T) (url string, db *sql.DB, body string) {
	t.Helper()
	latest, prev, body := migrationstest.Latest(t, pgmigrations.FS, "schema_migrations")
	url = pgtest.Empty(t)
	plain, err := iofs.New(pgmigrations.FS, ".")
	if err != nil {
		t.Fatal(err)
	}
	mdb, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	drv, err := mpgx.WithInstance(mdb, &mpgx.Config{MigrationsTable: "schema_migrations"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := migrate.NewWithInstance("iofs", plain, "pgx5", drv)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Migrate(prev); err != nil {
		t.Fatal(err)
	}
	m.Close()
	db, err = sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`UPDATE schema_migrations SET version = $1, dirty = true`, latest); err != nil {
		t.Fatal(err)
	}
	return url, db, body
}

// TestMigrateRunsAgainAMigrationLeftDirty: servers and workers starting together on a database
// whose latest migration a stop cut short all succeed, and the migration runs again once: the
// version left dirty is set back under the migration lock, so no starter sets it back after
// another has run it.
func TestMigrateRunsAgainAMigrationLeftDirty(t *testing.T) {
	t.Parallel()
	url, _, _ := leftDirty(t)
	checkLatest(t, openConcurrently(t, url, 4))
}

// TestMigrationCommitsItsCleanMark: a migration's text, as the store runs it, marks its version
// clean itself, so no stop between golang-migrate's steps leaves a committed migration dirty.
func TestMigrationCommitsItsCleanMark(t *testing.T) {
	t.Parallel()
	_, db, body := leftDirty(t)
	migrationstest.CheckCleanMark(t, db, body)
}

// openConcurrently opens and migrates the database at url from n goroutines at once, as n
// processes starting together would; every one must succeed. It returns the first store.
func openConcurrently(t *testing.T, url string, n int) *postgres.Store {
	t.Helper()
	stores := make([]*postgres.Store, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			stores[i], errs[i] = postgres.OpenMigrated(context.Background(), url, slog.New(slog.DiscardHandler))
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("migrator %d: %v", i, err)
		}
		t.Cleanup(func() { stores[i].Close() })
	}
	return stores[0]
}
