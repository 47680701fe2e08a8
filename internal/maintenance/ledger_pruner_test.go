package maintenance

import (
	"context"
	"testing"
	"time"
)

// TestLedgerPrunerKeepsThirtyDays: a row whose claim began just inside the retention stays, one
// just outside it goes, whatever its status.
func TestLedgerPrunerKeepsThirtyDays(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for id, age := range map[string]time.Duration{
		"kept-done":     LedgerRetention - time.Minute,
		"kept-claim":    LedgerRetention - time.Minute,
		"pruned-done":   LedgerRetention + time.Minute,
		"pruned-claim":  LedgerRetention + time.Minute,
		"pruned-old-ms": 90 * 24 * time.Hour,
	} {
		status := "done"
		if id == "kept-claim" || id == "pruned-claim" {
			status = "in_progress"
		}
		b.exec(t, `INSERT INTO processed_events (event_id, handler, status, started_at) VALUES (?, 'h', ?, ?)`,
			id, status, b.now.Add(-age).UnixMilli())
	}
	if err := NewLedgerPruner(b.store.Ledger(), b.cfg).RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := b.count(t, `SELECT count(*) FROM processed_events WHERE event_id LIKE 'pruned-%'`); n != 0 {
		t.Errorf("%d rows older than %s left", n, LedgerRetention)
	}
	if n := b.count(t, `SELECT count(*) FROM processed_events WHERE event_id LIKE 'kept-%'`); n != 2 {
		t.Errorf("%d rows younger than %s left, want 2", n, LedgerRetention)
	}
}

func TestLedgerRetentionIsThirtyDays(t *testing.T) {
	t.Parallel()
	if LedgerRetention != 30*24*time.Hour {
		t.Errorf("LedgerRetention = %s, the decision record says 30 days", LedgerRetention)
	}
}
