// Package outboxtest runs the delivery conformance suite (deliverytest) against an SQL store's
// outbox queue: the harness both stores share, so each adapter's test only opens its store.
package outboxtest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// MaxAttempts lets the retry schedule reach its 300 s cap twice before the dead letter.
const MaxAttempts = 9

// Queue is a store's outbox queue, closed when its test ends.
type Queue interface {
	delivery.Source
	Close() error
}

// Outbox is the store under test, as the harness drives it.
type Outbox struct {
	Queue     func(outbox.QueueConfig) Queue
	Ledger    deliverytest.Ledger
	Enqueue   func(ctx context.Context, events ...domain.Event) error
	ShowEvent func(ctx context.Context, id string) (outbox.EventRow, []outbox.LedgerEntry, error)
	// SettleOutcomes writes a broker consumer's outcomes (ADR 0002); Retry is the operators'
	// retry of dead letters.
	SettleOutcomes func(ctx context.Context, now time.Time, marks []delivery.Mark, outcomes []delivery.RowOutcome) ([]bool, error)
	Retry          func(ctx context.Context, ids []string, eventType string) (int64, error)
	// DB is a second connection to the store's database, through which the transitions case
	// sets rows to any state and reads them back whole.
	DB *sqlx.DB
}

// Run runs every outbox suite against the stores open returns, each case on a fresh database
// whose store reads the clock it is given: the delivery conformance suite, the relayed-row
// cases, the ledger's renewal, and the row transitions against outbox.Lifecycle's model.
func Run(t *testing.T, open func(t *testing.T, clock *Clock) Outbox) {
	t.Run("Conformance", func(t *testing.T) { t.Parallel(); runConformance(t, open) })
	t.Run("RelayOutcomes", func(t *testing.T) { t.Parallel(); runRelayOutcomes(t, open) })
	t.Run("LedgerRenew", func(t *testing.T) { runLedgerRenew(t, open) })
	t.Run("Transitions", func(t *testing.T) { t.Parallel(); runTransitions(t, open) })
	t.Run("ClaimTransitions", func(t *testing.T) { t.Parallel(); runClaimTransitions(t, open) })
	t.Run("LedgerTransitions", func(t *testing.T) { t.Parallel(); runLedgerTransitions(t, open) })
}

// Clock is the time the store stamps its rows with and the suite moves.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock is a clock that reads at until moved.
func NewClock(at time.Time) *Clock { return &Clock{now: at} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock d forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// runConformance runs the delivery conformance suite. Both SQL stores have the same features, so
// the same cases pass on both.
func runConformance(t *testing.T, open func(t *testing.T, clock *Clock) Outbox) {
	deliverytest.Run(t, deliverytest.Features{
		MaxAttempts:     MaxAttempts,
		Clock:           true,
		DeadLetterStore: true,
		ClaimLease:      outbox.ClaimLeaseDefault,
	}, func(t *testing.T) deliverytest.Harness {
		// Whole milliseconds, so next_attempt_at − now is exact; the store stamps rows with this clock.
		h := &harness{Clock: NewClock(time.Now().Truncate(time.Millisecond))}
		h.store = open(t, h.Clock)
		return h
	})
}

// harness is one database, a clock the store and the engine share, and the queues the suite
// asks for.
type harness struct {
	*Clock
	store Outbox
}

func (h *harness) Source(t *testing.T) delivery.Source {
	q := h.store.Queue(outbox.QueueConfig{MaxAttempts: MaxAttempts, Logger: deliverytest.Logger(t)})
	t.Cleanup(func() { q.Close() })
	return q
}

func (h *harness) Ledger() deliverytest.Ledger { return h.store.Ledger }

func (h *harness) Publish(t *testing.T, events ...domain.Event) []string {
	ids := make([]string, len(events))
	withIDs := make([]domain.Event, len(events))
	for i, e := range events {
		id := uuid.New()
		ids[i], withIDs[i] = id.String(), outbox.EventWithID{ID: id, Event: e}
	}
	if err := h.store.Enqueue(context.Background(), withIDs...); err != nil {
		t.Fatal(err)
	}
	return ids
}

// PublishCopies enqueues the copies under one id, one write each: event_id is unique in
// event_queue, so the outbox keeps the first and skips the rest (Features.Repeats is false).
func (h *harness) PublishCopies(t *testing.T, e domain.Event, copies int) string {
	id := uuid.New()
	for range copies {
		if err := h.store.Enqueue(context.Background(), outbox.EventWithID{ID: id, Event: e}); err != nil {
			t.Fatal(err)
		}
	}
	return id.String()
}

// Outcome reads the event's row as an operator would (worker events show).
func (h *harness) Outcome(t *testing.T, id string) deliverytest.Outcome {
	r, _, err := h.store.ShowEvent(context.Background(), id)
	if errors.Is(err, outbox.ErrEventNotFound) {
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
func (h *harness) Row(t *testing.T, id string) deliverytest.Row {
	r, _, err := h.store.ShowEvent(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return deliverytest.Row{Status: r.Status, Attempts: r.Attempts, LastError: r.LastError}
}
