package main

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"moviesdiary/internal/delivery/deliverytest"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/postgres/postgrestest"
	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/config"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/maintenance"
)

// TestRunWithNATSDeliversEveryEventOnce runs the whole worker (relay, consumer, engine, ledger)
// against an embedded JetStream server, in both NATS modes and on both stores, and expects events
// written to the outbox to reach the handler exactly once and every row to end done.
func TestRunWithNATSDeliversEveryEventOnce(t *testing.T) {
	for _, c := range []struct{ mode, store string }{
		{"jetstream", "sqlite"}, {"core", "sqlite"}, {"jetstream", "postgres"}, {"core", "postgres"},
	} {
		mode := c.mode
		t.Run(mode+"/"+c.store, func(t *testing.T) {
			ns := startJetStream(t)
			url, driver, dsn := filepath.Join(t.TempDir(), "md.db"), "sqlite3", ""
			if c.store == "postgres" {
				url = postgrestest.URL(t)
				driver, dsn = "pgx", url
			} else {
				dsn = "file:" + url + "?_busy_timeout=10000"
			}
			t.Setenv("EVENT_BUS_BACKEND", "nats")
			t.Setenv("NATS_URL", ns.ClientURL())
			t.Setenv("NATS_MODE", mode)
			t.Setenv("DATABASE_URL", url)
			t.Setenv("DATA_DIR", t.TempDir()) // the image directory
			t.Setenv("WORKER_METRICS_ADDR", "")
			t.Setenv("LOG_LEVEL", "error")
			cfg, err := config.Load()
			if err != nil {
				t.Fatal(err)
			}

			var mu sync.Mutex
			runs := map[string]int{}
			record := delivery.Handler{Name: "record", Types: []string{"SearchReindexRequested"},
				Handle: func(_ context.Context, e delivery.Envelope) error {
					mu.Lock()
					runs[e.EventID]++
					mu.Unlock()
					return nil
				}}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- run(ctx, cfg, testLog(t), time.Now, record) }()

			var store interface {
				Enqueue(context.Context, ...domain.Event) error
			}
			if c.store == "postgres" {
				ps, err := postgres.Open(context.Background(), url)
				if err != nil {
					t.Fatal(err)
				}
				defer ps.Close()
				store = ps
			} else {
				store = sqlitetest.Open(t, url)
			}
			if mode == "core" {
				// Core NATS loses what is published before the worker subscribes: wait until it
				// has taken a first event.
				if err := store.Enqueue(context.Background(), domain.SearchReindexRequested{}); err != nil {
					t.Fatal(err)
				}
				deliverytest.Eventually(t, waitLimit, "the worker's first event", func() bool { mu.Lock(); defer mu.Unlock(); return len(runs) == 1 })
			}
			const events = 50
			for range events {
				if err := store.Enqueue(context.Background(), domain.SearchReindexRequested{}); err != nil {
					t.Fatal(err)
				}
			}
			want := events
			if mode == "core" {
				want++
			}
			deliverytest.Eventually(t, waitLimit, "every event handled", func() bool { mu.Lock(); defer mu.Unlock(); return len(runs) == want })
			if mode == "jetstream" {
				// A message outliving its ledger rows would be handled again: the stream the
				// worker set up keeps messages exactly as long as the ledger keeps its rows.
				if age := streamMaxAge(t, ns.ClientURL(), cfg.NATSStreamName); age != maintenance.LedgerRetention {
					t.Errorf("stream max age %s, ledger retention %s", age, maintenance.LedgerRetention)
				}
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatalf("run: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			for id, n := range runs {
				if n != 1 {
					t.Errorf("event %s handled %d times", id, n)
				}
			}
			db, err := sql.Open(driver, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var notDone int
			if err := db.QueryRow(`SELECT count(*) FROM event_queue WHERE status != 'done'`).Scan(&notDone); err != nil {
				t.Fatal(err)
			}
			if notDone != 0 {
				t.Errorf("%d outbox rows not done", notDone)
			}
		})
	}
}

func streamMaxAge(t *testing.T, url, stream string) time.Duration {
	t.Helper()
	nc, err := natsgo.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := js.Stream(context.Background(), stream)
	if err != nil {
		t.Fatal(err)
	}
	return s.CachedInfo().Config.MaxAge
}
