package maintenance

import (
	"context"
	"fmt"
	"time"
)

// Federation retention.
const (
	// InboxDedupWindow is how long the id of an inbound activity is kept to refuse its
	// repetition. Senders retry a delivery for days (Mastodon's schedule spans about two and a
	// half days, GoToSocial's less), and a replay of a captured request is refused after the
	// 5-minute Date skew anyway; two weeks covers every retry schedule with margin. A repeat
	// after the window is processed again, which every inbound branch survives (upserts,
	// deletes, guarded status changes).
	InboxDedupWindow = 14 * 24 * time.Hour
	// PublishedActivityRetention is how long a published activity that nothing dereferences any
	// more (a superseded Update, an answer, an undo) stays dereferenceable: remote servers fetch
	// an activity id, if ever, within minutes of its delivery.
	PublishedActivityRetention = 90 * 24 * time.Hour
)

// Federation prunes federation state (*sqlite.Store).
type Federation interface {
	PruneFederation(ctx context.Context, now time.Time, inboxKeep, activityKeep time.Duration) (inbox, activities int64, err error)
}

// FederationPruner deletes inbound activity ids past InboxDedupWindow and published
// activities nothing needs past PublishedActivityRetention, so inbox_activities and
// ap_activities stop growing forever. The ids an adoption carried from movies-diary are kept:
// they are a fixed set, and the original refused a replay of any of them.
type FederationPruner struct {
	job
	store Federation
}

// NewFederationPruner builds the federation pruner.
func NewFederationPruner(store Federation, cfg JobConfig) *FederationPruner {
	return &FederationPruner{job: newJob("federation-pruner", cfg), store: store}
}

// RunOnce prunes once.
func (p *FederationPruner) RunOnce(ctx context.Context) error {
	var inbox, activities int64
	err := p.query(ctx, func(ctx context.Context) (err error) {
		inbox, activities, err = p.store.PruneFederation(ctx, p.now(), InboxDedupWindow, PublishedActivityRetention)
		return err
	})
	if err != nil {
		return fmt.Errorf("federation pruner: %w", err)
	}
	p.report(ctx, "inbound activity ids pruned", inbox)
	p.report(ctx, "published activities pruned", activities)
	return nil
}
