package storetest

import (
	"context"
	"errors"
	"maps"
	"testing"
	"time"

	"moviesdiary/internal/domain"
)

// EventCounter is what RunEventsSince needs of a store: events committed on their own, and the
// metrics cursor that counts committed outbox rows.
type EventCounter interface {
	Enqueue(ctx context.Context, events ...domain.Event) error
	EventsSince(ctx context.Context, cursor int64) (map[string]int, int64, error)
}

// Counted keeps the running totals of EventsSince over calls, as the metrics collector does.
type Counted struct {
	s      EventCounter
	cursor int64
	totals map[string]int
}

// NewCounted starts counting s's events from the beginning (cursor 0).
func NewCounted(s EventCounter) *Counted { return &Counted{s: s, totals: map[string]int{}} }

// Read calls EventsSince once from the current cursor, adds its counts and moves the cursor.
func (c *Counted) Read(t *testing.T) {
	t.Helper()
	counts, next, err := c.s.EventsSince(context.Background(), c.cursor)
	must(t, err)
	for typ, n := range counts {
		c.totals[typ] += n
	}
	c.cursor = next
}

// Totals is a copy of the counts so far.
func (c *Counted) Totals() map[string]int { return maps.Clone(c.totals) }

// Until reads until the totals equal want, and fails the test if they do not within a deadline
// or go past it. A store may count a committed row only once every older transaction has ended
// (PostgreSQL), so the wait polls; a few more reads must then add nothing.
func (c *Counted) Until(t *testing.T, want map[string]int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for c.Read(t); !maps.Equal(c.totals, want); c.Read(t) {
		for typ, n := range c.totals {
			if n > want[typ] {
				t.Fatalf("counted %v, past %v", c.totals, want)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("counted %v, want %v", c.totals, want)
		}
		time.Sleep(5 * time.Millisecond) // the poll's interval, not a synchronisation
	}
	for range 3 {
		if c.Read(t); !maps.Equal(c.totals, want) {
			t.Fatalf("counted %v after a further read, want %v", c.totals, want)
		}
	}
}

// RunEventsSince runs the metrics cursor's cases against stores open makes: each committed
// event is counted exactly once over repeated calls, a rolled-back one never.
func RunEventsSince(t *testing.T, open func(t *testing.T, faults *Faults) EventCounter) {
	ctx := context.Background()
	reindex, poster := domain.SearchReindexRequested{}, domain.PosterSynced{MovieID: [16]byte{1}}

	t.Run("CountsEachCommittedEventOnce", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		c := NewCounted(s)
		c.Until(t, map[string]int{})
		must(t, s.Enqueue(ctx, reindex, poster, poster))
		c.Until(t, map[string]int{"SearchReindexRequested": 1, "PosterSynced": 2})
		must(t, s.Enqueue(ctx, reindex))
		must(t, s.Enqueue(ctx, reindex))
		c.Until(t, map[string]int{"SearchReindexRequested": 3, "PosterSynced": 2})
	})

	t.Run("NeverCountsARolledBackEvent", func(t *testing.T) {
		t.Parallel()
		faults := &Faults{}
		s := open(t, faults)
		c := NewCounted(s)
		// The rows are written, then the transaction fails and rolls them back.
		faults.SetAfter(true)
		err := s.Enqueue(ctx, poster, poster)
		faults.SetAfter(false)
		if !errors.Is(err, ErrInjected) {
			t.Fatalf("enqueue with a failing transaction: %v", err)
		}
		c.Read(t) // a read while nothing is committed
		// A later commit is counted, so the cursor has passed the rolled-back rows.
		must(t, s.Enqueue(ctx, reindex))
		c.Until(t, map[string]int{"SearchReindexRequested": 1})
	})
}

// UntilSum reads until the totals add up to n rows of any type, and fails the test if they do
// not within a deadline or go past it.
func (c *Counted) UntilSum(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c.Read(t)
		sum := 0
		for _, k := range c.totals {
			sum += k
		}
		switch {
		case sum == n:
			return
		case sum > n:
			t.Fatalf("counted %v, past %d rows", c.totals, n)
		case time.Now().After(deadline):
			t.Fatalf("counted %v, want %d rows", c.totals, n)
		}
		time.Sleep(5 * time.Millisecond) // the poll's interval, not a synchronisation
	}
}
