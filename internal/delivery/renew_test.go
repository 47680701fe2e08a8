package delivery_test

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/domain"
)

// agedJob prepares one event's job for handler "h" against a real ledger at t0, then moves the
// clock past the ledger lease, as a job that waited in a stopped worker's local queue.
func agedJob(t *testing.T) (e *delivery.Engine, l delivery.Ledger, j delivery.Job, key delivery.Key, clock *time.Time, runs *atomic.Int32) {
	t.Helper()
	const lease = 8 * time.Second
	s := sqlitetest.Open(t, filepath.Join(t.TempDir(), "renew.db"))
	l = s.Ledger()
	now := time.Now().Truncate(time.Millisecond)
	clock = &now
	runs = &atomic.Int32{}
	h := delivery.Handler{Name: "h", Types: []string{"SearchReindexRequested"}, Handle: func(context.Context, delivery.Envelope) error {
		runs.Add(1)
		return nil
	}}
	e, err := delivery.NewEngine(delivery.Config{LedgerLease: lease, Now: func() time.Time { return *clock }, Logger: deliverytest.Logger(t)}, l, h)
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.Must(uuid.NewV7()).String()
	jobs := e.Prepare(context.Background(), []delivery.Message{message(t, id, domain.SearchReindexRequested{}, 1)})
	*clock = now.Add(lease + time.Second)
	return e, l, jobs[0], delivery.Key{EventID: id, Handler: "h"}, clock, runs
}

// TestAgedClaimTakenOverSkipsItsHandler: a job whose ledger claim outlived the lease while it
// waited, and was taken over by another delivery meanwhile, must not run its handler beside that
// delivery's: it is deferred to the other claim's expiry, no attempt spent.
func TestAgedClaimTakenOverSkipsItsHandler(t *testing.T) {
	t.Parallel()
	e, l, j, key, clock, runs := agedJob(t)
	other, err := l.Claim(context.Background(), *clock, 8*time.Second, []delivery.Key{key})
	if err != nil || other[0].State != delivery.Acquired || !other[0].TookOver {
		t.Fatalf("the other delivery's take-over: %+v %v", other, err)
	}
	r := e.Run(context.Background(), j, nil)
	if runs.Load() != 0 {
		t.Fatal("the handler ran although its claim had been taken over while the job waited")
	}
	if r.Kind != delivery.Defer || len(r.Marks) != 0 {
		t.Fatalf("result %v with %d marks; want a defer that marks nothing", r.Kind, len(r.Marks))
	}
}

// TestAgedClaimStillHeldIsRenewed: a job whose claim aged but was not taken over runs, and its
// done mark carries the renewed token, so it settles.
func TestAgedClaimStillHeldIsRenewed(t *testing.T) {
	t.Parallel()
	e, l, j, key, clock, runs := agedJob(t)
	r := e.Run(context.Background(), j, nil)
	if runs.Load() != 1 || r.Kind != delivery.Ack || len(r.Marks) != 1 || r.Marks[0].Token != clock.UnixMilli() {
		t.Fatalf("runs %d, result %v, marks %+v; want one run acked with the renewed token %d", runs.Load(), r.Kind, r.Marks, clock.UnixMilli())
	}
	// The renewed claim is fresh: another delivery finds it held, not stale.
	if c, err := l.Claim(context.Background(), *clock, 8*time.Second, []delivery.Key{key}); err != nil || c[0].State != delivery.Held {
		t.Fatalf("claim after the renewal: %+v %v; want held", c, err)
	}
}

// TestClaimTakenOverBetweenHandlersSkipsTheRest: a worker stopped after a job's first handler,
// past the ledger lease, while another delivery took the second handler's claim over, must not
// run the second handler when it resumes (make chaos saw it on JetStream: a paused worker ran
// handlers after the ledger said done).
func TestClaimTakenOverBetweenHandlersSkipsTheRest(t *testing.T) {
	t.Parallel()
	const lease = 8 * time.Second
	s := sqlitetest.Open(t, filepath.Join(t.TempDir(), "between.db"))
	l := s.Ledger()
	now := time.Now().Truncate(time.Millisecond)
	clock := now
	id := uuid.Must(uuid.NewV7()).String()
	var second atomic.Int32
	first := delivery.Handler{Name: "a", Types: []string{"SearchReindexRequested"}, Handle: func(context.Context, delivery.Envelope) error {
		// The worker stops here past the lease; another delivery takes the claims over.
		clock = now.Add(lease + time.Second)
		if c, err := l.Claim(context.Background(), clock, lease, []delivery.Key{{EventID: id, Handler: "b"}}); err != nil || c[0].State != delivery.Acquired {
			t.Errorf("the other delivery's take-over: %+v %v", c, err)
		}
		return nil
	}}
	next := delivery.Handler{Name: "b", Types: []string{"SearchReindexRequested"}, Handle: func(context.Context, delivery.Envelope) error {
		second.Add(1)
		return nil
	}}
	e, err := delivery.NewEngine(delivery.Config{LedgerLease: lease, Now: func() time.Time { return clock }, Logger: deliverytest.Logger(t)}, l, first, next)
	if err != nil {
		t.Fatal(err)
	}
	jobs := e.Prepare(context.Background(), []delivery.Message{message(t, id, domain.SearchReindexRequested{}, 1)})
	r := e.Run(context.Background(), jobs[0], nil)
	if second.Load() != 0 {
		t.Fatal("the second handler ran on a claim another delivery had taken over")
	}
	if r.Kind != delivery.Defer || len(r.Marks) != 1 || r.Marks[0].Handler != "a" {
		t.Fatalf("result %v with marks %+v; want a defer marking the first handler only", r.Kind, r.Marks)
	}
	// The first handler's done mark still settles: its claim kept the token the mark carries.
	if err := l.Settle(context.Background(), clock, r.Marks); err != nil {
		t.Fatal(err)
	}
	if c, err := l.Claim(context.Background(), clock, lease, []delivery.Key{{EventID: id, Handler: "a"}}); err != nil || c[0].State != delivery.Done {
		t.Fatalf("the first handler's claim after its mark: %+v %v; want done", c, err)
	}
}
