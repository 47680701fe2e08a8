package main

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"moviesdiary/internal/adapters/postgres/postgrestest"
	"moviesdiary/internal/delivery"
)

// TestChaosRecordingOnEachStore: the chaos recorder records an execution, with its times in
// microseconds since 1970 (past a 32-bit integer), on SQLite and on PostgreSQL.
func TestChaosRecordingOnEachStore(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			driver, dsn := "sqlite3", "file:"+filepath.Join(t.TempDir(), "chaos.db")+"?_busy_timeout=5000"
			if kind == "postgres" {
				driver, dsn = "pgx", postgrestest.URL(t)
			}
			ctx := context.Background()
			hs, closeRec, err := chaosRecording(ctx, driver, dsn, time.Now, []delivery.Handler{{
				Name: "noop", Types: []string{"ReviewLogged"}, Handle: func(context.Context, delivery.Envelope) error { return nil }}})
			if err != nil {
				t.Fatal(err)
			}
			defer closeRec()
			before := time.Now().UnixMicro()
			if err := hs[0].Handle(ctx, delivery.Envelope{EventID: "e1", Attempt: 1}); err != nil {
				t.Fatalf("recorded handler: %v", err)
			}
			db, err := sql.Open(driver, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var started, ended int64
			if err := db.QueryRow(`SELECT started_us, ended_us FROM chaos_recordings WHERE event_id = 'e1' AND handler = 'noop'`).Scan(&started, &ended); err != nil {
				t.Fatalf("the execution is not recorded: %v", err)
			}
			if started < before || ended < started {
				t.Errorf("recorded from %d to %d µs, want from at least %d, ending after its start", started, ended, before)
			}
			var handlers int
			if err := db.QueryRow(`SELECT count(*) FROM chaos_handlers WHERE event_type = 'ReviewLogged'`).Scan(&handlers); err != nil || handlers != 2 {
				t.Errorf("%d handlers listed for ReviewLogged (%v), want noop and the chaos recorder", handlers, err)
			}
		})
	}
}

// TestChaosRecordingStartsTogether: workers starting at once on one PostgreSQL database all set
// up the recorder's tables (CREATE TABLE IF NOT EXISTS races there).
func TestChaosRecordingStartsTogether(t *testing.T) {
	url := postgrestest.URL(t)
	const workers = 8
	errs := make(chan error, workers)
	start := make(chan struct{})
	for range workers {
		go func() {
			<-start
			_, closeRec, err := chaosRecording(context.Background(), "pgx", url, time.Now, nil)
			if err == nil {
				closeRec()
			}
			errs <- err
		}()
	}
	close(start)
	for range workers {
		if err := <-errs; err != nil {
			t.Errorf("a worker's recorder: %v", err)
		}
	}
}
