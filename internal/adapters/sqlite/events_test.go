package sqlite

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// errOutboxDown is what a faultyOutbox's enqueue returns.
var errOutboxDown = errors.New("outbox down")

// faultyOutbox makes the store's enqueue fail for a batch that holds an event of one type, and
// write the events as usual otherwise: a write whose events fail must then leave nothing behind.
type faultyOutbox struct{ failOn atomic.Pointer[string] }

func newFaultyOutbox() *faultyOutbox { return &faultyOutbox{} }

// option makes a store write its events through f.
func (f *faultyOutbox) option() Option {
	return WithEnqueue(func(ctx context.Context, tx *sqlx.Tx, now time.Time, events ...domain.Event) error {
		if typ := f.failOn.Load(); typ != nil {
			for _, e := range events {
				if e.EventType() == *typ {
					return errOutboxDown
				}
			}
		}
		return outbox.Insert(ctx, tx, now, events...)
	})
}

// fail makes batches holding an event of type eventType fail; "" lets every batch through.
func (f *faultyOutbox) fail(eventType string) { f.failOn.Store(&eventType) }

// outboxEvents decodes every event in the outbox, oldest first.
func outboxEvents(t *testing.T, s *Store) []domain.Event {
	t.Helper()
	var rows []struct {
		Type    string `db:"event_type"`
		Payload []byte `db:"payload"`
	}
	if err := s.read.Select(&rows, `SELECT event_type, payload FROM event_queue ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	events := make([]domain.Event, len(rows))
	for i, r := range rows {
		e, err := domain.Decode(r.Type, r.Payload)
		if err != nil {
			t.Fatalf("outbox row %d: %v", i, err)
		}
		events[i] = e
	}
	return events
}

// count returns the single number query selects.
func count(t *testing.T, s *Store, query string, args ...any) int {
	t.Helper()
	var n int
	if err := s.read.Get(&n, query, args...); err != nil {
		t.Fatal(err)
	}
	return n
}
