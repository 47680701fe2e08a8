package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/domain"
)

// queueMaxAttempts lets the retry schedule reach its 300 s cap twice before the dead letter.
const queueMaxAttempts = 9

// TestQueueConformance runs the delivery conformance suite against the SQLite queue, with a
// clock the suite moves.
func TestQueueConformance(t *testing.T) {
	t.Parallel()
	deliverytest.Run(t, deliverytest.Features{
		MaxAttempts:       queueMaxAttempts,
		Clock:             true,
		DeadLetterStore:   true,
		ReturnsOnShutdown: true,
		StaleClaims:       true,
		ClaimLease:        sqlite.ClaimLeaseDefault,
	}, newQueueHarness)
}

// queueHarness is one database file, a clock the store and the engine share, and the queues
// the suite asks for.
type queueHarness struct {
	store *sqlite.Store
	mu    sync.Mutex
	now   time.Time
}

func newQueueHarness(t *testing.T) deliverytest.Harness {
	// Whole milliseconds, so next_attempt_at − now is exact; the store stamps rows with this clock.
	h := &queueHarness{now: time.Now().Truncate(time.Millisecond)}
	h.store = sqlitetest.Open(t, filepath.Join(t.TempDir(), "conformance.db"), sqlite.WithClock(h.Now))
	return h
}

func (h *queueHarness) Source(t *testing.T) delivery.Source {
	q := h.store.Queue(sqlite.QueueConfig{MaxAttempts: queueMaxAttempts, Logger: deliverytest.Logger(t)})
	t.Cleanup(func() { q.Close() })
	return q
}

func (h *queueHarness) Ledger() deliverytest.Ledger { return h.store.Ledger() }

func (h *queueHarness) Publish(t *testing.T, events ...domain.Event) []string {
	ids := make([]string, len(events))
	withIDs := make([]domain.Event, len(events))
	for i, e := range events {
		id := uuid.New()
		ids[i], withIDs[i] = id.String(), sqlite.EventWithID{ID: id, Event: e}
	}
	if err := h.store.Enqueue(context.Background(), withIDs...); err != nil {
		t.Fatal(err)
	}
	return ids
}

// PublishCopies enqueues the copies under one id, one write each: event_id is unique in
// event_queue, so the outbox keeps the first and skips the rest (Features.Repeats is false).
func (h *queueHarness) PublishCopies(t *testing.T, e domain.Event, copies int) string {
	id := uuid.New()
	for range copies {
		if err := h.store.Enqueue(context.Background(), sqlite.EventWithID{ID: id, Event: e}); err != nil {
			t.Fatal(err)
		}
	}
	return id.String()
}

func (h *queueHarness) Now() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.now
}

func (h *queueHarness) Advance(d time.Duration) {
	h.mu.Lock()
	h.now = h.now.Add(d)
	h.mu.Unlock()
}

// Outcome reads the event's row as an operator would (worker events show).
func (h *queueHarness) Outcome(t *testing.T, id string) deliverytest.Outcome {
	r, _, err := h.store.ShowEvent(context.Background(), id)
	if errors.Is(err, sqlite.ErrEventNotFound) {
		return deliverytest.Outcome{}
	}
	if err != nil {
		t.Fatal(err)
	}
	o := deliverytest.Outcome{Attempts: r.Attempts, Err: r.LastError}
	switch r.Status {
	case "pending":
		o.State, o.Delay = deliverytest.Waiting, max(r.NextAttemptAt.Sub(h.Now()), 0)
	case "processing":
		o.State = deliverytest.Claimed
	case "done":
		o.State = deliverytest.Done
	case "dead_lettered":
		o.State = deliverytest.DeadLettered
	}
	return o
}

// Row reads the event's row.
func (h *queueHarness) Row(t *testing.T, id string) deliverytest.Row {
	r, _, err := h.store.ShowEvent(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return deliverytest.Row{Status: r.Status, Attempts: r.Attempts, LastError: r.LastError}
}
