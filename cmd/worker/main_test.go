package main

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/delivery/deliverytest"

	"go.uber.org/goleak"

	"moviesdiary/internal/adapters/postgres/postgrestest"
	"moviesdiary/internal/config"
)

// waitLimit bounds every wait of the worker's tests.
const waitLimit = 30 * time.Second

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// testLog sends a test's logs to its output (shown when it fails or with -v).
func testLog(t *testing.T) *slog.Logger { return slog.New(slog.NewTextHandler(t.Output(), nil)) }

// TestRunStopsWithAFailingPart: a part that fails (the metrics server, its port taken) stops
// the whole worker with its error, although nobody cancelled run's context, and run leaves no
// goroutine behind, in both backends.
func TestRunStopsWithAFailingPart(t *testing.T) {
	for _, backend := range []string{"db", "nats"} {
		t.Run(backend, func(t *testing.T) {
			taken, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer taken.Close()
			t.Setenv("DATA_DIR", t.TempDir())
			t.Setenv("EVENT_BUS_BACKEND", backend)
			t.Setenv("WORKER_METRICS_ADDR", taken.Addr().String())
			if backend == "nats" {
				ns := startJetStream(t)
				t.Setenv("NATS_URL", ns.ClientURL())
			}
			cfg, err := config.Load()
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- run(context.Background(), cfg, testLog(t), time.Now) }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "WORKER_METRICS_ADDR") {
					t.Fatalf("run = %v, want the metrics server's error naming WORKER_METRICS_ADDR", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("run kept going after a part failed")
			}
		})
		// Checked after the subtest, once its NATS server is shut down.
		goleak.VerifyNone(t, natsServerGoroutines...)
	}
}

// TestRunStopsCleanly: run returns nil once its context ends and leaves no goroutine behind, on
// SQLite and on PostgreSQL.
func TestRunStopsCleanly(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			t.Setenv("DATA_DIR", t.TempDir())
			t.Setenv("EVENT_BUS_BACKEND", "db")
			t.Setenv("WORKER_METRICS_ADDR", "127.0.0.1:0")
			var db *sql.DB
			if kind == "postgres" {
				url := postgrestest.URL(t)
				t.Setenv("DATABASE_URL", url)
				var err error
				if db, err = sql.Open("pgx", url); err != nil {
					t.Fatal(err)
				}
			}
			cfg, err := config.Load()
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- run(ctx, cfg, testLog(t), time.Now) }()
			if db == nil {
				path, _ := cfg.DatabasePath()
				db = openDB(t, filepath.Clean(path))
			}
			// The maintenance jobs run at start, under the lease: once it is taken, every part is up.
			deliverytest.Eventually(t, waitLimit, "the maintenance lease taken", func() bool {
				var n int
				return db.QueryRow(`SELECT count(*) FROM job_leases`).Scan(&n) == nil && n == 1
			})
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("run = %v after its context ended, want nil", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("run did not return after its context ended")
			}
			db.Close()
			goleak.VerifyNone(t, natsServerGoroutines...)
		})
	}
}
