package maintenance

import (
	"context"
	"fmt"
	"time"
)

// LedgerRetention is how long processed_events rows are kept: the decision record's 30 days. The
// JetStream stream keeps messages as long, so a message still in the stream always finds its
// handlers' ledger rows and is never handled twice.
const LedgerRetention = 30 * 24 * time.Hour

// Ledger deletes ledger rows whose claim began before now-keep (*sqlstore.Ledger).
type Ledger interface {
	Prune(ctx context.Context, now time.Time, keep time.Duration) (int64, error)
}

// LedgerPruner deletes ledger rows older than LedgerRetention.
type LedgerPruner struct {
	job
	ledger Ledger
}

// NewLedgerPruner builds the ledger pruner.
func NewLedgerPruner(ledger Ledger, cfg JobConfig) *LedgerPruner {
	return &LedgerPruner{job: newJob("ledger-pruner", cfg), ledger: ledger}
}

// RunOnce deletes the ledger rows older than LedgerRetention.
func (p *LedgerPruner) RunOnce(ctx context.Context) error {
	var n int64
	err := p.query(ctx, func(ctx context.Context) (err error) {
		n, err = p.ledger.Prune(ctx, p.now(), LedgerRetention)
		return err
	})
	if err != nil {
		return fmt.Errorf("ledger pruner: %w", err)
	}
	p.report(ctx, "ledger rows pruned", n)
	return nil
}
