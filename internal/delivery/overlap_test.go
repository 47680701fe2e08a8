package delivery_test

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/outbox"
)

// blockingLedger holds its first Claim until release is closed.
type blockingLedger struct {
	delivery.Ledger
	calls   atomic.Int64
	entered chan struct{}
	release chan struct{}
}

func (l *blockingLedger) Claim(ctx context.Context, now time.Time, lease time.Duration, keys []delivery.Key) ([]delivery.Claim, error) {
	if l.calls.Add(1) == 1 {
		close(l.entered)
		<-l.release
	}
	return l.Ledger.Claim(ctx, now, lease, keys)
}

// countingSource reports every claim that took messages.
type countingSource struct {
	delivery.Source
	claimed chan int
}

func (s countingSource) Claim(ctx context.Context, max int) ([]delivery.Message, error) {
	msgs, err := s.Source.Claim(ctx, max)
	if len(msgs) > 0 {
		s.claimed <- len(msgs)
	}
	return msgs, err
}

// TestPumpClaimsWhileTheLedgerClaims: the next batch is claimed while the previous batch's
// ledger claims are still being taken (issue 34: one after the other, they were most of the time
// from a commit to its handler at 1,000 events/s). The first ledger claim is held until the
// second batch has been claimed; a pump that claims the ledger on its claim loop never gets
// there.
func TestPumpClaimsWhileTheLedgerClaims(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "overlap.db")
	ledger := &blockingLedger{entered: make(chan struct{}), release: make(chan struct{})}
	claimed := make(chan int, 10)
	var handled atomic.Int64
	h := delivery.Handler{Name: "count", Types: []string{"SearchReindexRequested"}, Handle: func(context.Context, delivery.Envelope) error {
		handled.Add(1)
		return nil
	}}
	w := startWorkerOn(t, path, outbox.QueueConfig{}, delivery.PumpConfig{BatchSize: 1},
		func(s *sqlite.Store) delivery.Ledger { ledger.Ledger = s.Ledger(); return ledger },
		func(src delivery.Source) delivery.Source { return countingSource{Source: src, claimed: claimed} }, h)
	defer func() {
		select {
		case <-ledger.release:
		default:
			close(ledger.release)
		}
	}()
	enqueue(t, w.store, 1)
	deadline := time.After(30 * time.Second)
	select {
	case <-ledger.entered:
	case <-deadline:
		t.Fatal("the first batch's ledger claim never began")
	}
	<-claimed
	enqueue(t, w.store, 1)
	select {
	case <-claimed:
	case <-deadline:
		t.Fatal("no second claim while the first batch's ledger claim was held: the claim loop waits for the ledger")
	}
	close(ledger.release)
	deliverytest.Eventually(t, 30*time.Second, "both events handled", func() bool { return handled.Load() == 2 })
}
