package wrapup

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// GeneratorName keys the generation in the processed-event ledger; never rename it.
const GeneratorName = "wrapup-generation"

// GeneratorTypes are the events the generator handles.
var GeneratorTypes = []string{domain.WrapUpRequested{}.EventType()}

// GenerationStore is the database side of the generation.
type GenerationStore interface {
	// StartWrapUp moves a Pending, Failed or (left by a crash) Generating wrap-up to
	// Generating and returns it; ok is false when there is nothing to generate (gone, Ready, or
	// a Failed one superseded by a newer live request).
	StartWrapUp(ctx context.Context, id uuid.UUID) (w domain.WrapUp, ok bool, err error)
	// WrapUpViewings returns the local reviews of the user (nil: everyone) watched in the range.
	WrapUpViewings(ctx context.Context, user *uuid.UUID, start, end domain.Date) ([]Viewing, error)
	// CompleteWrapUp stores the report and marks the wrap-up Ready with WrapUpCompleted, in one
	// transaction, if it is still Generating; done reports whether it did.
	CompleteWrapUp(ctx context.Context, id uuid.UUID, report json.RawMessage, at time.Time) (done bool, err error)
	// FailWrapUp marks a Generating wrap-up Failed with msg.
	FailWrapUp(ctx context.Context, id uuid.UUID, msg string) error
}

// Generator generates requested wrap-ups.
type Generator struct {
	store GenerationStore
	now   func() time.Time
	log   *slog.Logger
}

// NewGenerator builds the handler; now may be nil for time.Now.
func NewGenerator(store GenerationStore, now func() time.Time, log *slog.Logger) *Generator {
	if now == nil {
		now = time.Now
	}
	return &Generator{store: store, now: now, log: cmp.Or(log, slog.Default())}
}

// Handle generates the event's wrap-up: Pending → Generating → Ready. A Generating record found
// on delivery was left by a crash (the ledger lets one delivery run at a time) and is resumed;
// a Ready one is done. Completion and WrapUpCompleted commit together only while the record is
// Generating, so the event is emitted once however often this runs. A failure records Failed
// with its message and is returned (a transient one is retried, resuming from Failed).
func (g *Generator) Handle(ctx context.Context, e domain.Event) error {
	ev, ok := e.(domain.WrapUpRequested)
	if !ok {
		return domain.Permanent(fmt.Errorf("wrap-up generation: unexpected event %s", e.EventType()))
	}
	w, ok, err := g.store.StartWrapUp(ctx, ev.WrapUpID)
	if err != nil || !ok {
		return err
	}
	report, err := g.generate(ctx, w)
	if err == nil {
		_, err = g.store.CompleteWrapUp(ctx, w.ID, report, g.now())
		if err == nil {
			return nil
		}
	}
	// Record the failure with its own deadline: ctx may be what failed.
	failCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if ferr := g.store.FailWrapUp(failCtx, w.ID, err.Error()); ferr != nil {
		g.log.ErrorContext(ctx, "wrap-up failure not recorded", "wrapup_id", w.ID, "error", ferr)
	}
	return fmt.Errorf("generate wrap-up %s: %w", w.ID, err)
}

func (g *Generator) generate(ctx context.Context, w domain.WrapUp) (json.RawMessage, error) {
	viewings, err := g.store.WrapUpViewings(ctx, w.UserID, w.StartDate, w.EndDate)
	if err != nil {
		return nil, err
	}
	report, err := MarshalReport(BuildReport(w, viewings, g.now()))
	if err != nil {
		return nil, domain.Permanent(err)
	}
	return report, nil
}
