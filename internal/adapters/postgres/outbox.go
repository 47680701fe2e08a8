package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/domain"
)

// notifyChannel is the LISTEN/NOTIFY channel of the outbox: every transaction that enqueues
// events notifies it, and the queues' notifier listens on it.
const notifyChannel = "moviesdiary_outbox"

// EnqueueEvents writes events into the outbox inside the caller's transaction, so they commit or
// roll back with the change that caused them, and notifies notifyChannel in the same
// transaction: PostgreSQL delivers the notification at the commit, and never for a rollback. It
// is the only code that inserts into event_queue, and it always sets event_id (a time-ordered
// UUIDv7), so every event can be deduplicated. An EventWithID keeps the id its writer chose
// instead; an event whose id is already in the outbox is skipped (ON CONFLICT DO NOTHING), so a
// writer that derives its ids can replay safely.
//
// now stamps the rows' created_at and next_attempt_at (Unix ms), so a row enqueued at the
// store's clock T is claimable at T and not before.
func EnqueueEvents(ctx context.Context, tx *sqlx.Tx, now time.Time, events ...domain.Event) error {
	at := millis(now)
	for len(events) > 0 {
		n := min(len(events), enqueueChunk)
		if err := enqueueChunkOf(ctx, tx, at, events[:n]); err != nil {
			return err
		}
		events = events[n:]
	}
	return nil
}

// enqueueChunk bounds the rows of one INSERT (5 parameters each, far below PostgreSQL's 65535).
const enqueueChunk = 1000

// EventWithID is an event whose outbox id is chosen by its writer rather than minted (the
// federation fan-out derives each delivery's id from its activity id and inbox). Pass it to
// EnqueueEvents like any event.
type EventWithID struct {
	ID    uuid.UUID
	Event domain.Event
}

// EventType is the wrapped event's type.
func (e EventWithID) EventType() string { return e.Event.EventType() }

func enqueueChunkOf(ctx context.Context, tx *sqlx.Tx, at int64, events []domain.Event) error {
	var q strings.Builder
	q.WriteString(`WITH inserted AS (INSERT INTO event_queue (event_id, event_type, payload, created_at, next_attempt_at) VALUES `)
	args := make([]any, 0, 5*len(events))
	for i, e := range events {
		var id uuid.UUID
		if w, ok := e.(EventWithID); ok {
			id, e = w.ID, w.Event
		}
		payload, err := domain.Encode(e)
		if err != nil {
			return fmt.Errorf("enqueue %s: %w", e.EventType(), err)
		}
		if id == uuid.Nil {
			if id, err = uuid.NewV7(); err != nil {
				return fmt.Errorf("enqueue %s: event id: %w", e.EventType(), err)
			}
		}
		if i > 0 {
			q.WriteByte(',')
		}
		n := len(args)
		q.WriteString("($" + strconv.Itoa(n+1) + ", $" + strconv.Itoa(n+2) + ", $" + strconv.Itoa(n+3) +
			", $" + strconv.Itoa(n+4) + ", $" + strconv.Itoa(n+5) + ")")
		args = append(args, id.String(), e.EventType(), string(payload), at, at)
	}
	// One statement inserts and notifies; notifications of one transaction on one channel with
	// one payload are delivered once, however many chunks or writes it made.
	q.WriteString(` ON CONFLICT (event_id) WHERE event_id IS NOT NULL DO NOTHING RETURNING 1)
		SELECT pg_notify('` + notifyChannel + `', '')`)
	if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
		return fmt.Errorf("enqueue events: %w", err)
	}
	return nil
}

// EnqueueFunc is the signature of EnqueueEvents, which WithEnqueue replaces.
type EnqueueFunc func(ctx context.Context, tx *sqlx.Tx, now time.Time, events ...domain.Event) error

// enqueue writes a transaction's events stamped with the store's clock: what every repository
// write calls.
func (s *Store) enqueue(ctx context.Context, tx *sqlx.Tx, events ...domain.Event) error {
	return s.insert(ctx, tx, s.now(), events...)
}

// Enqueue commits events on their own, for requests that change nothing but the outbox (a
// poster sync or a search reindex request).
func (s *Store) Enqueue(ctx context.Context, events ...domain.Event) error {
	return s.write(ctx, func(tx *sqlx.Tx) error { return s.enqueue(ctx, tx, events...) })
}
