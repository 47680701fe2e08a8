package postgres_test

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/golang-migrate/migrate/v4"
	mpgx "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/golang-migrate/migrate/v4/source/iofs"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/postgres/pgtest"
	"moviesdiary/migrations"
	pgmigrations "moviesdiary/migrations/postgres"
)

// leftDirty is a database a stop inside the latest migration left behind: every migration
// before it applied, the latest's version marked dirty and its work undone. It returns the
// database's URL, a connection to it and the latest migration's text as the store runs it.
func leftDirty(t *testing.T) (url string, db *sql.DB, latest uint, body string) {
	t.Helper()
	latest, err := postgres.LatestVersion()
	if err != nil {
		t.Fatal(err)
	}
	src, err := migrations.Source(pgmigrations.FS, "schema_migrations")
	if err != nil {
		t.Fatal(err)
	}
	prev, err := src.Prev(latest)
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := src.ReadUp(latest)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
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
	return url, db, latest, string(b)
}

// TestMigrateRunsAgainAMigrationLeftDirty: servers and workers starting together on a database
// whose latest migration a stop cut short all succeed, and the migration runs again once: the
// version left dirty is set back under the migration lock, so no starter sets it back after
// another has run it.
func TestMigrateRunsAgainAMigrationLeftDirty(t *testing.T) {
	t.Parallel()
	url, _, _, _ := leftDirty(t)
	const processes = 4
	stores := make([]*postgres.Store, processes)
	errs := make([]error, processes)
	var wg sync.WaitGroup
	for i := range processes {
		wg.Go(func() {
			stores[i], errs[i] = postgres.OpenMigrated(context.Background(), url, slog.New(slog.DiscardHandler))
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("migrator %d over a dirty version: %v", i, err)
		}
		defer stores[i].Close()
	}
	checkLatest(t, stores[0])
}

// TestMigrationCommitsItsCleanMark: a migration's text, as the store runs it, marks its version
// clean itself, so the schema change and the clean mark commit or roll back together and no stop
// between golang-migrate's steps leaves a committed migration marked dirty.
func TestMigrationCommitsItsCleanMark(t *testing.T) {
	t.Parallel()
	_, db, _, body := leftDirty(t)
	dirty := func(q interface {
		QueryRow(string, ...any) *sql.Row
	}) bool {
		var d bool
		if err := q.QueryRow(`SELECT dirty FROM schema_migrations`).Scan(&d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(body); err != nil {
		t.Fatal(err)
	}
	if dirty(tx) {
		t.Fatal("the migration's transaction leaves its version dirty")
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if !dirty(db) {
		t.Fatal("the clean mark outlived its migration's rollback")
	}
}
