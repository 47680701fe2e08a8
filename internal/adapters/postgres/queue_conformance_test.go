package postgres_test

import (
	"testing"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/outbox"
	"moviesdiary/internal/outbox/outboxtest"
)

// TestOutbox runs the outbox suites (the delivery conformance suite, the relayed-row cases, the
// ledger's renewal) against the PostgreSQL store, with a clock the suites move.
func TestOutbox(t *testing.T) {
	t.Parallel()
	outboxtest.Run(t, func(t *testing.T, clock *outboxtest.Clock) outboxtest.Outbox {
		s, _ := open(t, postgres.WithClock(clock.Now))
		return outboxtest.Outbox{
			Queue:     func(cfg outbox.QueueConfig) outboxtest.Queue { return s.Queue(cfg) },
			Ledger:    s.Ledger(),
			Enqueue:   s.Enqueue,
			ShowEvent: s.ShowEvent,
			Record:    s.Ledger().Record,
			Retry:     s.RetryEvents,
		}
	})
}
