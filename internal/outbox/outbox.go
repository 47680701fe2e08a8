// Package outbox is the outbox of every SQL store (SQLite and PostgreSQL): the one code path
// that inserts into event_queue (the stores' EnqueueEvents call Insert inside their write
// transactions, so the rows commit or roll back with the change that caused them), and the
// row's life after that as one state machine (Lifecycle), whose decisions the stores execute.
package outbox

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/domain"
)

// EventWithID is an event whose outbox id is chosen by its writer rather than minted: the
// federation fan-out derives each delivery's id from its activity id and inbox, so replaying the
// fan-out after a crash writes no second delivery. Pass it to Insert like any event.
type EventWithID struct {
	ID    uuid.UUID
	Event domain.Event
}

// EventType is the wrapped event's type.
func (e EventWithID) EventType() string { return e.Event.EventType() }

const (
	insertInto = `INSERT INTO event_queue (event_id, event_type, payload, created_at, next_attempt_at) VALUES `
	insertRow  = `(?, ?, ?, ?, ?)`
	onConflict = ` ON CONFLICT (event_id) WHERE event_id IS NOT NULL DO NOTHING`
	// chunk bounds the rows of one INSERT: 5 parameters a row stays far below SQLite's and
	// PostgreSQL's limits.
	chunk = 500
)

// Insert writes events into event_queue inside tx. It always sets event_id (a time-ordered
// UUIDv7), so every event can be deduplicated; an EventWithID keeps the id its writer chose,
// and an event whose id is already in the outbox is skipped (ON CONFLICT DO NOTHING), so a
// writer that derives its ids can replay safely. now stamps created_at and next_attempt_at
// (Unix ms), so a row enqueued at the store's clock T is claimable at T and not before.
// Placeholders follow tx's driver (sqlx's Rebind).
func Insert(ctx context.Context, tx *sqlx.Tx, now time.Time, events ...domain.Event) error {
	at := now.UnixMilli()
	// Multi-row INSERTs, not a prepared statement per call: a write usually carries one to three
	// events, and preparing costs more than the rows.
	for len(events) > 0 {
		n := min(len(events), chunk)
		if err := insertChunk(ctx, tx, at, events[:n]); err != nil {
			return err
		}
		events = events[n:]
	}
	return nil
}

func insertChunk(ctx context.Context, tx *sqlx.Tx, at int64, events []domain.Event) error {
	query := make([]byte, 0, len(insertInto)+len(events)*(len(insertRow)+1)+len(onConflict))
	query = append(query, insertInto...)
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
			query = append(query, ',')
		}
		query = append(query, insertRow...)
		args = append(args, id.String(), e.EventType(), payload, at, at)
	}
	query = append(query, onConflict...)
	if _, err := tx.ExecContext(ctx, tx.Rebind(string(query)), args...); err != nil {
		return fmt.Errorf("enqueue events: %w", err)
	}
	return nil
}
