package postgres

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// notifyChannel is the LISTEN/NOTIFY channel of the outbox: a trigger on event_queue (migration
// 0101) notifies it for every statement that inserts, and the queues' notifier listens on it.
const notifyChannel = "moviesdiary_outbox"

// EnqueueEvents writes events into the outbox inside the caller's transaction, so they commit or
// roll back with the change that caused them, through outbox.Insert, the only code that inserts
// into event_queue (it sets every event_id; an EventWithID keeps its writer's id, and a repeated
// id is skipped). now stamps the rows' created_at and next_attempt_at. The table's statement
// trigger (migration 0101) notifies notifyChannel: PostgreSQL delivers it at the commit, once
// per transaction, and never for a rollback.
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
	return s.write(ctx, func(tx *sqlx.Tx) error { return s.enqueue(ctx, tx, events...) })
}
