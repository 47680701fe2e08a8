package maintenance

import (
	"context"
	"errors"
	"testing"
	"time"
)

// blocked answers every port call by waiting for the call's context: a query that would hang.
type blocked struct{}

func (blocked) Prune(ctx context.Context, _ time.Time, _ time.Duration) (int64, error) {
	<-ctx.Done()
	return 0, ctx.Err()
}

func (blocked) PurgeDone(ctx context.Context, _ time.Time, _ time.Duration) (int64, error) {
	<-ctx.Done()
	return 0, ctx.Err()
}

func (blocked) CleanupWrapUps(ctx context.Context, _, _ time.Time) (int64, int64, error) {
	<-ctx.Done()
	return 0, 0, ctx.Err()
}

func (blocked) RequestStaleEnrichment(ctx context.Context, _ time.Time, _, _, _ time.Duration, _ int) (int, error) {
	<-ctx.Done()
	return 0, ctx.Err()
}

func (blocked) RequestStalePersonEnrichment(ctx context.Context, _ time.Time, _, _ time.Duration, _ int) (int, error) {
	<-ctx.Done()
	return 0, ctx.Err()
}

func (blocked) PruneSessions(ctx context.Context, _ time.Time) (int64, error) {
	<-ctx.Done()
	return 0, ctx.Err()
}

func (blocked) AcquireLease(ctx context.Context, _, _ string, _ time.Time, _ time.Duration) (bool, error) {
	<-ctx.Done()
	return false, ctx.Err()
}

// TestEveryQueryHasATimeout: a hanging query ends at the job's QueryTimeout with a deadline
// error, although the caller's context never ends.
func TestEveryQueryHasATimeout(t *testing.T) {
	t.Parallel()
	cfg := JobConfig{Logger: testLogger(t), QueryTimeout: 20 * time.Millisecond}
	for name, j := range map[string]Job{
		"ledger pruner":        NewLedgerPruner(blocked{}, cfg),
		"outbox purger":        NewOutboxPurger(blocked{}, cfg),
		"wrap-up reaper":       NewWrapUpReaper(blocked{}, cfg),
		"enrichment requester": NewEnrichmentRequester(blocked{}, 10, cfg),
		"session pruner":       NewSessionPruner(blocked{}, cfg),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if err := j.RunOnce(context.Background()); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("RunOnce = %v, want a deadline error", err)
			}
		})
	}
	t.Run("lease", func(t *testing.T) {
		t.Parallel()
		ran := false
		r := NewRunner(RunnerConfig{Lease: blocked{}, QueryTimeout: 20 * time.Millisecond, Logger: testLogger(t)},
			jobFunc(func(context.Context) error { ran = true; return nil }))
		if r.RunOnce(context.Background()) || ran {
			t.Error("the jobs ran although the lease query timed out")
		}
	})
}
