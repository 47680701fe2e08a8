package sqlite_test

import (
	"path/filepath"
	"testing"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/outbox"
	"moviesdiary/internal/outbox/outboxtest"
)

// TestQueueConformance runs the delivery conformance suite against the SQLite queue, with a
// clock the suite moves, each case on its own database file.
func TestQueueConformance(t *testing.T) {
	t.Parallel()
	outboxtest.RunConformance(t, func(t *testing.T, clock *outboxtest.Clock) outboxtest.Outbox {
		s := sqlitetest.Open(t, filepath.Join(t.TempDir(), "conformance.db"), sqlite.WithClock(clock.Now))
		return relayOf(s).Outbox
	})
}

// TestRelayOutcomes runs the relayed-row cases (ADR 0002) against the SQLite store.
func TestRelayOutcomes(t *testing.T) {
	t.Parallel()
	outboxtest.RunRelayOutcomes(t, func(t *testing.T, clock *outboxtest.Clock) outboxtest.Relay {
		s := sqlitetest.Open(t, filepath.Join(t.TempDir(), "relay.db"), sqlite.WithClock(clock.Now))
		return relayOf(s)
	})
}

// relayOf is the store as the outbox suites drive it.
func relayOf(s *sqlite.Store) outboxtest.Relay {
	return outboxtest.Relay{
		Outbox: outboxtest.Outbox{
			Queue:     func(cfg outbox.QueueConfig) outboxtest.Queue { return s.Queue(cfg) },
			Ledger:    s.Ledger(),
			Enqueue:   s.Enqueue,
			ShowEvent: s.ShowEvent,
		},
		Record: s.Ledger().Record,
		Retry:  s.RetryEvents,
	}
}

// TestLedgerRenew checks the ledger's renewal of claims against the sqlite store.
func TestLedgerRenew(t *testing.T) {
	outboxtest.RunLedgerRenew(t, func(t *testing.T, clock *outboxtest.Clock) outboxtest.Outbox {
		s := sqlitetest.Open(t, filepath.Join(t.TempDir(), "renew.db"), sqlite.WithClock(clock.Now))
		return relayOf(s).Outbox
	})
}
