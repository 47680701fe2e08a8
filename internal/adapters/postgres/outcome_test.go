package postgres_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/sqlstore"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
	"moviesdiary/internal/outbox/outboxtest"
)

// bundle is one test's database, clock and queue.
type bundle struct {
	s     *postgres.Store
	clock *outboxtest.Clock
	q     *sqlstore.Queue
}

func setup(t *testing.T, maxAttempts int, onDead func()) *bundle {
	t.Helper()
	clock := outboxtest.NewClock(time.Now().Truncate(time.Millisecond))
	s, _ := open(t, postgres.WithClock(clock.Now))
	q := s.Queue(outbox.QueueConfig{MaxAttempts: maxAttempts, Logger: deliverytest.Logger(t), OnDeadLetter: onDead})
	return &bundle{s: s, clock: clock, q: q}
}

func (b *bundle) enqueue(t *testing.T) string {
	t.Helper()
	id := uuid.New()
	if err := b.s.Enqueue(context.Background(), outbox.EventWithID{ID: id, Event: domain.SearchReindexRequested{}}); err != nil {
		t.Fatal(err)
	}
	return id.String()
}

func (b *bundle) row(t *testing.T, id string) outbox.EventRow {
	t.Helper()
	r, _, err := b.s.ShowEvent(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestAbandonedDeliveriesCountAsAttempts: a row whose workers keep dying holding it is
// dead-lettered after MaxAttempts abandoned deliveries, counted once.
func TestAbandonedDeliveriesCountAsAttempts(t *testing.T) {
	t.Parallel()
	const maxAttempts = 3
	var counted atomic.Int32
	b := setup(t, maxAttempts, func() { counted.Add(1) })
	ctx := context.Background()
	id := b.enqueue(t)
	for n := 1; n <= maxAttempts; n++ {
		msgs, err := b.q.Claim(ctx, 10)
		if err != nil || len(msgs) != 1 || msgs[0].Attempt != n {
			t.Fatalf("claim %d: %+v %v; want the event as delivery %d", n, msgs, err, n)
		}
		b.clock.Advance(outbox.ClaimLeaseDefault) // the worker dies holding the claim
	}
	if msgs, err := b.q.Claim(ctx, 10); err != nil || len(msgs) != 0 {
		t.Fatalf("after %d abandoned deliveries a claim got %d messages (%v); want none", maxAttempts, len(msgs), err)
	}
	if counted.Load() != 1 {
		t.Errorf("dead letter counted %d times, want once", counted.Load())
	}
	if r := b.row(t, id); r.Status != "dead_lettered" || r.Attempts != maxAttempts || !strings.Contains(r.LastError, "died or stalled") {
		t.Fatalf("row %+v; want dead-lettered after %d attempts with the crash named", r, maxAttempts)
	}
}

// TestRecordedOutcomes: a relayed row takes the consumer's outcomes: a retry moves its re-relay
// horizon (never earlier) and keeps the error, a return hands it back to the relay, an ack
// makes it done with the failed deliveries counted.
func TestRecordedOutcomes(t *testing.T) {
	t.Parallel()
	b := setup(t, 5, nil)
	ctx := context.Background()
	id := b.enqueue(t)
	relay := func() {
		t.Helper()
		msgs, err := b.q.Claim(ctx, 10)
		if err != nil || len(msgs) != 1 {
			t.Fatalf("relay claim: %+v %v", msgs, err)
		}
		if err := b.q.Settle(ctx, []delivery.Result{{Msg: msgs[0], Kind: delivery.Handoff, Until: b.clock.Now().Add(time.Hour)}}); err != nil {
			t.Fatal(err)
		}
	}
	record := func(o delivery.RowOutcome) {
		t.Helper()
		o.EventID = id
		if _, err := b.s.Ledger().SettleOutcomes(ctx, b.clock.Now(), nil, []delivery.RowOutcome{o}); err != nil {
			t.Fatal(err)
		}
	}
	relay()
	record(delivery.RowOutcome{Kind: delivery.Retry, Round: 0, Deliveries: 1, Err: errors.New("timeout"), At: b.clock.Now().Add(time.Minute)})
	if r := b.row(t, id); r.Status != "relayed" || r.LastError != "timeout" || !r.NextAttemptAt.Equal(b.clock.Now().Add(time.Hour)) {
		t.Fatalf("after a retry: %+v; want relayed, the error kept, the later horizon kept", r)
	}
	// The copy's second delivery is handed back by a shutdown: the failed first one stays
	// counted, the returned one spends nothing (ADR 0010).
	record(delivery.RowOutcome{Kind: delivery.Return, Round: 0, Deliveries: 2, At: b.clock.Now()})
	if r := b.row(t, id); r.Status != "pending" || r.Attempts != 1 {
		t.Fatalf("after a return: %+v; want pending with the one failed delivery counted, the returned one not", r)
	}
	relay()
	// The next copy (which carries that attempt) is acked on its own second delivery.
	record(delivery.RowOutcome{Kind: delivery.Ack, Round: 1, Deliveries: 2})
	if r := b.row(t, id); r.Status != "done" || r.Attempts != 2 || r.LastError != "" {
		t.Fatalf("after an ack: %+v; want done with 2 failed deliveries", r)
	}
}

// TestErrorsAreStoredAsText: an error with a NUL byte or invalid UTF-8 (which PostgreSQL text
// refuses) and one longer than the bound are kept, cleaned and cut at a character.
func TestErrorsAreStoredAsText(t *testing.T) {
	t.Parallel()
	b := setup(t, 5, nil)
	ctx := context.Background()
	id := b.enqueue(t)
	msgs, err := b.q.Claim(ctx, 10)
	if err != nil || len(msgs) != 1 {
		t.Fatal(msgs, err)
	}
	long := strings.Repeat("é", 5000) // 10,000 bytes: cut inside the 8 KiB bound
	bad := errors.New("bad\x00byte \xff " + long)
	if err := b.q.Settle(ctx, []delivery.Result{{Msg: msgs[0], Kind: delivery.DeadLetter, Err: bad}}); err != nil {
		t.Fatal(err)
	}
	r := b.row(t, id)
	if r.Status != "dead_lettered" || !strings.HasPrefix(r.LastError, "badbyte \uFFFD é") || !strings.HasSuffix(r.LastError, "é…") ||
		len(r.LastError) > 8<<10+len("…") {
		t.Fatalf("row %s with %d bytes of error %.40q…", r.Status, len(r.LastError), r.LastError)
	}
}

// TestAcquireLease: one holder at a time until the lease expires; the holder renews.
func TestAcquireLease(t *testing.T) {
	t.Parallel()
	s, _ := open(t)
	ctx := context.Background()
	now := time.Now()
	for _, c := range []struct {
		holder string
		at     time.Duration
		want   bool
	}{
		{"a", 0, true},
		{"b", time.Second, false},
		{"a", 2 * time.Second, true}, // renewed until 62 s
		{"b", time.Minute, false},
		{"b", 62 * time.Second, true},
	} {
		got, err := s.AcquireLease(ctx, "job", c.holder, now.Add(c.at), time.Minute)
		if err != nil || got != c.want {
			t.Fatalf("%s at %s: %v %v, want %v", c.holder, c.at, got, err, c.want)
		}
	}
}
