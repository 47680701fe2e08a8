package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/domain"
)

// TestMediaJobsRunOnOneWorkerAtATime: two workers' job loops share the lease; only its holder
// runs, the holder renews it, and another takes over once it expired.
func TestMediaJobsRunOnOneWorkerAtATime(t *testing.T) {
	ctx := context.Background()
	store := sqlitetest.Open(t, filepath.Join(t.TempDir(), "jobs.db"))
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := newMediaJobs(store, discard(), time.Hour, true, 10)
	b := newMediaJobs(store, discard(), time.Hour, true, 10)
	a.now = func() time.Time { return now }
	b.now = a.now
	if !a.runOnce(ctx) {
		t.Fatal("first worker did not get the lease")
	}
	if b.runOnce(ctx) {
		t.Fatal("second worker ran while the first holds the lease")
	}
	now = now.Add(time.Hour) // the holder's next tick renews
	if !a.runOnce(ctx) || b.runOnce(ctx) {
		t.Fatal("the holder did not keep the lease")
	}
	now = now.Add(2 * time.Hour) // the holder died: its lease ran out
	if !b.runOnce(ctx) {
		t.Fatal("the lease was not taken over after it expired")
	}
	if a.runOnce(ctx) {
		t.Fatal("the old holder ran after the take-over")
	}
}

// TestMediaJobsRequestStaleEnrichmentBounded: a run requests at most the batch.
func TestMediaJobsRequestStaleEnrichmentBounded(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "jobs.db")
	store := sqlitetest.Open(t, path)
	db := openDB(t, path)
	for i := range 25 {
		ext := "tt00000" + string(rune('a'+i))
		if _, err := db.Exec(`INSERT INTO movies (id, external_metadata_id, title) VALUES (?, ?, 'x')`,
			domain.MovieIDFor(ext).String(), ext); err != nil {
			t.Fatal(err)
		}
	}
	j := newMediaJobs(store, discard(), time.Hour, true, 10)
	j.runOnce(ctx)
	if n := count(t, db, `SELECT count(*) FROM event_queue WHERE event_type = 'MovieEnrichmentRequested'`); n != 10 {
		t.Errorf("first run requested %d, want the batch of 10", n)
	}
	j.runOnce(ctx)
	if n := count(t, db, `SELECT count(*) FROM event_queue WHERE event_type = 'MovieEnrichmentRequested'`); n != 20 {
		t.Errorf("second run: %d requested in all, want 20 (no movie twice)", n)
	}
	j.tmdb = false
	j.runOnce(ctx)
	if n := count(t, db, `SELECT count(*) FROM event_queue WHERE event_type = 'MovieEnrichmentRequested'`); n != 20 {
		t.Errorf("without TMDb: %d requested, want none more", n)
	}
}
