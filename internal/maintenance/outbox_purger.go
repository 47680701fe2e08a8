package maintenance

import (
	"context"
	"fmt"
	"time"
)

// DoneEventRetention is how long done outbox rows are kept before the purge deletes them.
const DoneEventRetention = 7 * 24 * time.Hour

// Outbox deletes done rows created more than olderThan ago, in chunks (*sqlite.Store).
type Outbox interface {
	PurgeDone(ctx context.Context, now time.Time, olderThan time.Duration) (int64, error)
}

// OutboxPurger deletes done outbox rows older than DoneEventRetention.
type OutboxPurger struct {
	job
	outbox Outbox
}

// NewOutboxPurger builds the done-outbox purge; its cut-off comes from JobConfig.Now.
func NewOutboxPurger(outbox Outbox, cfg JobConfig) *OutboxPurger {
	return &OutboxPurger{job: newJob("outbox-purger", cfg), outbox: outbox}
}

// RunOnce deletes the done rows older than DoneEventRetention. The store deletes in committed
// chunks, so a purge the timeout cuts short keeps what it deleted and resumes next interval.
func (p *OutboxPurger) RunOnce(ctx context.Context) error {
	var n int64
	err := p.query(ctx, func(ctx context.Context) (err error) {
		n, err = p.outbox.PurgeDone(ctx, p.now(), DoneEventRetention)
		return err
	})
	p.report(ctx, "done outbox rows purged", n)
	if err != nil {
		return fmt.Errorf("outbox purger: %w", err)
	}
	return nil
}
