package sqlite

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// EnqueueEvents writes events into the outbox inside the caller's transaction, so they commit or
// roll back with the change that caused them, through outbox.Insert, the only code that inserts
// into event_queue (it sets every event_id; an EventWithID keeps its writer's id, and a repeated
// id is skipped). now stamps the rows' created_at and next_attempt_at.
func EnqueueEvents(ctx context.Context, tx *sqlx.Tx, now time.Time, events ...domain.Event) error {
	return outbox.Insert(ctx, tx, now, events...)
}

// EventWithID is an event whose outbox id is chosen by its writer rather than minted (the
// federation fan-out derives each delivery's id from its activity id and inbox).
type EventWithID = outbox.EventWithID

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
	return s.writeAlone(ctx, func(tx *sqlx.Tx) error { return s.enqueue(ctx, tx, events...) })
}
