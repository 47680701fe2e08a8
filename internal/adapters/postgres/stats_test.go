package postgres_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/metrics"
	"moviesdiary/internal/adapters/storetest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// beginEnqueue opens a transaction on db that enqueues events and is left open, and returns it
// with the id its row took.
func beginEnqueue(t *testing.T, db *sqlx.DB, events ...domain.Event) (*sqlx.Tx, int64) {
	t.Helper()
	ctx := context.Background()
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback() })
	if err := outbox.Insert(ctx, tx, time.Now(), events...); err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := tx.GetContext(ctx, &id, `SELECT max(id) FROM event_queue`); err != nil {
		t.Fatal(err)
	}
	return tx, id
}

// TestEventsSinceCountsALateCommitOnce: transaction A takes a lower id than transaction B but
// commits after B was committed and read; A's event is still counted, exactly once. (A cursor
// on ids counts B, moves past A's id and never counts A.)
func TestEventsSinceCountsALateCommitOnce(t *testing.T) {
	t.Parallel()
	s, url := open(t)
	db, err := sqlx.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c := storetest.NewCounted(s)

	a, idA := beginEnqueue(t, db, domain.SearchReindexRequested{})
	b, idB := beginEnqueue(t, db, domain.PosterSynced{MovieID: [16]byte{1}})
	if idA >= idB {
		t.Fatalf("ids %d (A) and %d (B), want A's lower", idA, idB)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	for range 3 { // B is committed and may be counted; A is not committed and must not be
		if c.Read(t); c.Totals()["SearchReindexRequested"] != 0 {
			t.Fatalf("counted %v while A is uncommitted", c.Totals())
		}
	}
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	c.Until(t, map[string]int{"SearchReindexRequested": 1, "PosterSynced": 1})
}

// TestEnqueuedRowKeepsItsTransaction: outbox.Insert leaves enqueued_xact to its default, the
// inserting transaction's id, and a status update does not change it (the row's xmin does).
func TestEnqueuedRowKeepsItsTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, url := open(t)
	db, err := sqlx.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, id := beginEnqueue(t, db, domain.SearchReindexRequested{})
	var xact, enqueued string
	if err := tx.QueryRowxContext(ctx, `SELECT pg_current_xact_id()::text, enqueued_xact::text FROM event_queue WHERE id = $1`,
		id).Scan(&xact, &enqueued); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if enqueued != xact {
		t.Fatalf("enqueued_xact %s, want the inserting transaction %s", enqueued, xact)
	}
	if _, err := db.ExecContext(ctx, `UPDATE event_queue SET status = 'done' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	var after, xmin string
	if err := db.QueryRowxContext(ctx, `SELECT enqueued_xact::text, xmin::text FROM event_queue WHERE id = $1`, id).
		Scan(&after, &xmin); err != nil {
		t.Fatal(err)
	}
	if after != enqueued || xmin == enqueued {
		t.Fatalf("after an update: enqueued_xact %s (was %s), xmin %s", after, enqueued, xmin)
	}
}

// TestEnqueuedMetricCountsPostgres: the server's moviesdiary_events_enqueued_total, read from a
// PostgreSQL store over several scrapes, counts each committed event once.
func TestEnqueuedMetricCountsPostgres(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := open(t)
	m := metrics.NewServer()
	m.CountEnqueued(s, slog.New(slog.DiscardHandler))
	metric := regexp.MustCompile(`(?m)^moviesdiary_events_enqueued_total\{type="SearchReindexRequested"\} (\S+)$`)
	scrape := func() float64 {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		got := metric.FindStringSubmatch(rec.Body.String())
		if got == nil {
			return 0
		}
		v, err := strconv.ParseFloat(got[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	waitFor := func(want float64) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for v := scrape(); v != want; v = scrape() {
			if v > want || time.Now().After(deadline) {
				t.Fatalf("metric %v, want %v", v, want)
			}
			time.Sleep(5 * time.Millisecond) // the poll's interval, not a synchronisation
		}
	}
	if err := s.Enqueue(ctx, domain.SearchReindexRequested{}, domain.SearchReindexRequested{}); err != nil {
		t.Fatal(err)
	}
	waitFor(2)
	if err := s.Enqueue(ctx, domain.SearchReindexRequested{}); err != nil {
		t.Fatal(err)
	}
	waitFor(3)
	for range 3 {
		if v := scrape(); v != 3 {
			t.Fatalf("metric %v after further scrapes, want 3", v)
		}
	}
}
