package maintenance

import (
	"context"
	"fmt"
	"time"
)

// Thresholds of the wrap-up reaper.
const (
	// StuckWrapUpAfter is how long a wrap-up may stay Pending or Generating before it is failed
	// (its event was dead-lettered or its generation never finished), so it can be requested again.
	StuckWrapUpAfter = 24 * time.Hour
	// FailedWrapUpKeep is how long a Failed wrap-up is kept before it is deleted.
	FailedWrapUpKeep = 7 * 24 * time.Hour
)

// WrapUps deletes Failed wrap-ups created before failedBefore and fails the unfinished ones
// created before stuckBefore, in one transaction (*sqlite.Store).
type WrapUps interface {
	CleanupWrapUps(ctx context.Context, failedBefore, stuckBefore time.Time) (deleted, failed int64, err error)
}

// WrapUpReaper fails stuck wrap-ups and deletes old failed ones. A wrap-up carried from
// movies-diary is as old as its adoption, not its creation, so the first run after the
// adoption neither deletes the original's history nor fails what its requests still owe.
type WrapUpReaper struct {
	job
	wrapups WrapUps
}

// NewWrapUpReaper builds the wrap-up reaper.
func NewWrapUpReaper(wrapups WrapUps, cfg JobConfig) *WrapUpReaper {
	return &WrapUpReaper{job: newJob("wrapup-reaper", cfg), wrapups: wrapups}
}

// RunOnce fails the wrap-ups stuck for StuckWrapUpAfter and deletes those failed for
// FailedWrapUpKeep.
func (r *WrapUpReaper) RunOnce(ctx context.Context) error {
	now := r.now()
	var deleted, failed int64
	err := r.query(ctx, func(ctx context.Context) (err error) {
		deleted, failed, err = r.wrapups.CleanupWrapUps(ctx, now.Add(-FailedWrapUpKeep), now.Add(-StuckWrapUpAfter))
		return err
	})
	if err != nil {
		return fmt.Errorf("wrap-up reaper: %w", err)
	}
	r.report(ctx, "stuck wrap-ups failed", failed)
	r.report(ctx, "old failed wrap-ups deleted", deleted)
	return nil
}
