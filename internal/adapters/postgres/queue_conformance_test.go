package postgres_test

import (
	"testing"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/outbox"
	"moviesdiary/internal/outbox/outboxtest"
)

// TestQueueConformance runs the delivery conformance suite against the PostgreSQL queue with
// the SQLite queue's features: the same cases pass on both stores.
func TestQueueConformance(t *testing.T) {
	t.Parallel()
	outboxtest.RunConformance(t, func(t *testing.T, clock *outboxtest.Clock) outboxtest.Outbox {
		s, _ := open(t, postgres.WithClock(clock.Now))
		return relayOf(s).Outbox
	})
}

// TestRelayOutcomes runs the relayed-row cases (ADR 0002) against the PostgreSQL store.
func TestRelayOutcomes(t *testing.T) {
	t.Parallel()
	outboxtest.RunRelayOutcomes(t, func(t *testing.T, clock *outboxtest.Clock) outboxtest.Relay {
		s, _ := open(t, postgres.WithClock(clock.Now))
		return relayOf(s)
	})
}

// relayOf is the store as the outbox suites drive it.
func relayOf(s *postgres.Store) outboxtest.Relay {
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

// TestLedgerRenew checks the ledger's renewal of claims against the postgres store.
func TestLedgerRenew(t *testing.T) {
	outboxtest.RunLedgerRenew(t, func(t *testing.T, clock *outboxtest.Clock) outboxtest.Outbox {
		s, _ := open(t, postgres.WithClock(clock.Now))
		return relayOf(s).Outbox
	})
}
