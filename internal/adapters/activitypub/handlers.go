package activitypub

import (
	"context"
	"fmt"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/federation"
)

// Handler names: stable, they key the processed-event ledger.
const (
	OutboundHandler = "federation.outbound"
	DeliverHandler  = "federation.deliver"
	InboundHandler  = "federation.inbound"
	BackfillHandler = "federation.backfill"
	ImportHandler   = "federation.import"
)

// Handlers are the worker's federation handlers, each a use-case call: outbound turns domain
// events into activities and fans each out as one delivery per inbox; deliver POSTs one
// delivery; inbound processes an activity an inbox stored; backfill sends a newly accepted
// follower our recent reviews; import reads the outbox of an actor who accepted our follow. A
// foreign writer's row (no event id) is keyed by its row (federation.Key), so two such rows with
// equal payloads cause two activities.
func (f *Federation) Handlers() []delivery.Handler {
	return []delivery.Handler{
		{Name: OutboundHandler, Types: federation.OutboundTypes, Handle: func(ctx context.Context, env delivery.Envelope) error {
			return f.fed.Outbound(ctx, federation.Key(env.EventID, env.RowID), env.Event)
		}},
		{Name: DeliverHandler, Types: federation.DeliverTypes, Handle: func(ctx context.Context, env delivery.Envelope) error {
			return f.fed.Deliver(ctx, federation.Key(env.EventID, env.RowID), env.Event)
		}},
		{Name: InboundHandler, Types: federation.InboundTypes, Handle: f.inbound},
		{Name: BackfillHandler, Types: federation.BackfillTypes, Handle: func(ctx context.Context, env delivery.Envelope) error {
			return f.fed.Backfill(ctx, federation.Key(env.EventID, env.RowID), env.Event)
		}},
		{Name: ImportHandler, Types: federation.FollowTimeTypes, Handle: func(ctx context.Context, env delivery.Envelope) error {
			return f.fed.Import(ctx, env.Event)
		}},
	}
}

// inbound reads an activity an inbox stored and has the use case process it; a document that is
// not a JSON object is a permanent error.
func (f *Federation) inbound(ctx context.Context, env delivery.Envelope) error {
	e, ok := env.Event.(domain.ActivityReceived)
	if !ok {
		return nil
	}
	a, err := decodeObject(e.Activity)
	if err != nil {
		return domain.Permanent(fmt.Errorf("inbound activity: %w", err))
	}
	return f.fed.Process(ctx, e, inboundOf(a))
}

// Ignored counts the inbound activities the worker acknowledged and dropped, by reason (a plain
// post that is not a review, an unhandled type...): federation.Service.Ignored.
func (f *Federation) Ignored() map[string]int64 { return f.fed.Ignored() }
