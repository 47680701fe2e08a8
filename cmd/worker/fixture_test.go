package main

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/postgres/postgrestest"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/review"
)

// fixtureStore is what the operators' command tests write their fixtures through, on either store.
type fixtureStore interface {
	Enqueue(ctx context.Context, events ...domain.Event) error
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	LogReview(ctx context.Context, r domain.Review, m domain.Movie, idem *review.Idempotency) (review.Logged, error)
	Close() error
}

// openFixtureStore opens a migrated store of kind ("sqlite": a file named name in a temporary
// directory; "postgres": a throwaway database), which the caller closes, with the URL the
// worker's commands take and a *sql.DB over the same database for the test's own reads and writes.
func openFixtureStore(t *testing.T, kind, name string) (s fixtureStore, url string, db *sql.DB) {
	t.Helper()
	ctx := context.Background()
	driver, dsn := "sqlite3", ""
	if kind == "postgres" {
		url = postgrestest.URL(t)
		driver, dsn = "pgx", url
		ps, err := postgres.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		s = ps
	} else {
		url = filepath.Join(t.TempDir(), name)
		dsn = "file:" + url + "?_busy_timeout=5000"
		ss, err := sqlite.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		if err := ss.Migrate(ctx, discard()); err != nil {
			t.Fatal(err)
		}
		s = ss
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return s, url, db
}

// workerEnv sets the environment a whole worker (run) reads for backend ("db", or NATS_MODE
// "jetstream" or "core" over an embedded JetStream server) on a SQLite file, and returns the
// file's path and the metrics address.
func workerEnv(t *testing.T, backend string) (path, metricsAddr string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "md.db")
	t.Setenv("DATABASE_URL", path)
	t.Setenv("DATA_DIR", t.TempDir())
	t.Setenv("LOG_LEVEL", "error")
	metricsAddr = freeAddr(t)
	t.Setenv("WORKER_METRICS_ADDR", metricsAddr)
	if backend != "db" {
		ns := startJetStream(t)
		t.Setenv("EVENT_BUS_BACKEND", "nats")
		t.Setenv("NATS_URL", ns.ClientURL())
		t.Setenv("NATS_MODE", backend)
	}
	return path, metricsAddr
}
