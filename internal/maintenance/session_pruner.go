package maintenance

import (
	"context"
	"fmt"
	"time"
)

// Sessions deletes the refresh sessions expired at now (*sqlite.Store).
type Sessions interface {
	PruneSessions(ctx context.Context, now time.Time) (int64, error)
}

// SessionPruner deletes expired refresh sessions. It is idempotent, so every server runs it
// without a lease.
type SessionPruner struct {
	job
	sessions Sessions
}

// NewSessionPruner builds the session pruner.
func NewSessionPruner(sessions Sessions, cfg JobConfig) *SessionPruner {
	return &SessionPruner{job: newJob("session-pruner", cfg), sessions: sessions}
}

// RunOnce deletes the expired refresh sessions.
func (p *SessionPruner) RunOnce(ctx context.Context) error {
	var n int64
	err := p.query(ctx, func(ctx context.Context) (err error) {
		n, err = p.sessions.PruneSessions(ctx, p.now())
		return err
	})
	if err != nil {
		return fmt.Errorf("session pruner: %w", err)
	}
	p.report(ctx, "expired refresh sessions pruned", n)
	return nil
}
