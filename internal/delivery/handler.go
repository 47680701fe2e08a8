package delivery

import (
	"context"

	"moviesdiary/internal/domain"
)

// Handler is an idempotent reaction to some event types. Name is stable across releases: it keys
// the processed-event ledger, so renaming a handler makes it run again for old events.
type Handler struct {
	Name   string
	Types  []string
	Handle func(ctx context.Context, e Envelope) error
}

// Envelope is what a handler receives: the decoded event and where it is in its delivery life.
type Envelope struct {
	// EventID is the outbox event id; empty for a row from a foreign writer (no dedup).
	EventID string
	// RowID is the event's outbox row id, 0 when the source does not know it: what keys an
	// id-less row, so two foreign rows with equal payloads stay two events.
	RowID int64
	Event domain.Event
	// Attempt is this delivery's number, 1 for the first.
	Attempt int
}
