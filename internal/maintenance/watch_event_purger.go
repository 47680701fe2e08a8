package maintenance

import (
	"context"
	"fmt"
	"time"
)

// Watch-queue retention. A closed watch event (confirmed into a review, or dismissed) is kept
// a week: long past the one-hour window in which a repeated scrobble of the same movie is
// recognised as the same watch, and short enough that the table holds little more than the
// queues. A pending one nobody confirmed or dismissed in 90 days is dropped as forgotten.
const (
	ClosedWatchRetention  = 7 * 24 * time.Hour
	PendingWatchRetention = 90 * 24 * time.Hour
)

// WatchEvents deletes closed watch events closed before closedBefore and pending ones watched
// before pendingBefore (*sqlite.Store).
type WatchEvents interface {
	PurgeWatchEvents(ctx context.Context, closedBefore, pendingBefore time.Time) (int64, error)
}

// WatchEventPurger removes closed and long-forgotten watch events.
type WatchEventPurger struct {
	job
	events WatchEvents
}

// NewWatchEventPurger builds the watch-queue clean-up; its cut-offs come from JobConfig.Now.
func NewWatchEventPurger(events WatchEvents, cfg JobConfig) *WatchEventPurger {
	return &WatchEventPurger{job: newJob("watch-event-purger", cfg), events: events}
}

// RunOnce deletes the watch events past their retention.
func (p *WatchEventPurger) RunOnce(ctx context.Context) error {
	now := p.now()
	var n int64
	err := p.query(ctx, func(ctx context.Context) (err error) {
		n, err = p.events.PurgeWatchEvents(ctx, now.Add(-ClosedWatchRetention), now.Add(-PendingWatchRetention))
		return err
	})
	if err != nil {
		return fmt.Errorf("watch event purger: %w", err)
	}
	p.report(ctx, "watch events purged", n)
	return nil
}
