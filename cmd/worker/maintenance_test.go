package main

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"moviesdiary/internal/delivery/deliverytest"

	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/config"
	"moviesdiary/internal/domain"
)

// TestWorkerPrunesTheLedgerAfterThirtyDays runs the worker itself (run, with its production
// maintenance wiring) against a real database holding ledger rows 29 and 31 days old: only the
// 31-day row is pruned. Shortening the retention anywhere (the constant, the job, the wiring)
// prunes the 29-day row; dropping the job leaves the 31-day one.
func TestWorkerPrunesTheLedgerAfterThirtyDays(t *testing.T) {
	path := filepath.Join(t.TempDir(), "md.db")
	t.Setenv("DATA_DIR", t.TempDir())
	t.Setenv("DATABASE_URL", path)
	t.Setenv("EVENT_BUS_BACKEND", "db")
	t.Setenv("WORKER_METRICS_ADDR", "")
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	sqlitetest.Open(t, path)
	db := openDB(t, path)
	day := 24 * time.Hour
	for id, age := range map[string]time.Duration{"29-days": 29 * day, "31-days": 31 * day} {
		if _, err := db.Exec(`INSERT INTO processed_events (event_id, handler, status, started_at, processed_at)
			VALUES (?, 'h', 'done', ?, ?)`, id, time.Now().Add(-age).UnixMilli(), time.Now().Add(-age).UnixMilli()); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, cfg, testLog(t), time.Now) }()
	ledger := func(id string) int {
		return count(t, db, fmt.Sprintf(`SELECT count(*) FROM processed_events WHERE event_id = '%s'`, id))
	}
	deliverytest.Eventually(t, waitLimit, "the 31-day ledger row pruned", func() bool { return ledger("31-days") == 0 })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
	// One DELETE covers both rows, so the 29-day row's fate is settled once the other is gone.
	if ledger("29-days") != 1 {
		t.Error("the 29-day ledger row was pruned: the retention is shorter than 30 days")
	}
}

// TestStaleEnrichmentIsRequestedOnlyWithTMDb: the worker's maintenance requests stale movies'
// enrichment when TMDb is configured, and not without it (nothing would answer the requests).
func TestStaleEnrichmentIsRequestedOnlyWithTMDb(t *testing.T) {
	for key, want := range map[string]int{"": 0, "a-key": 3} {
		t.Run(fmt.Sprintf("key=%q", key), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "md.db")
			store := sqlitetest.Open(t, path)
			db := openDB(t, path)
			for i := range 3 {
				ext := fmt.Sprintf("tt%07d", i)
				if _, err := db.Exec(`INSERT INTO movies (id, external_metadata_id, title) VALUES (?, ?, 'x')`,
					domain.MovieIDFor(ext).String(), ext); err != nil {
					t.Fatal(err)
				}
			}
			cfg := config.Config{TMDBAPIKey: key, Media: config.Media{JobInterval: time.Hour, EnrichmentBatch: 10}}
			if !newMaintenance(cfg, store, store.Ledger(), testLog(t), time.Now).RunOnce(context.Background()) {
				t.Fatal("the maintenance did not run (lease not taken)")
			}
			if n := count(t, db, `SELECT count(*) FROM event_queue WHERE event_type = 'MovieEnrichmentRequested'`); n != want {
				t.Errorf("%d enrichment requests, want %d", n, want)
			}
		})
	}
}
