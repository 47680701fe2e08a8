package postgres_test

import (
	"testing"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/outbox"
	"moviesdiary/internal/outbox/outboxtest"
)

// TestOutbox runs the outbox suites (the delivery conformance suite, the relayed-row cases, the
// ledger's renewal) against the PostgreSQL store, with a clock the suites move.
func TestOutbox(t *testing.T) {
	t.Parallel()
	outboxtest.Run(t, func(t *testing.T, clock *outboxtest.Clock) outboxtest.Outbox {
		s, url := open(t, postgres.WithClock(clock.Now))
		db, err := sqlx.Open("pgx", url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return outboxtest.Outbox{
			Queue:          func(cfg outbox.QueueConfig) outboxtest.Queue { return s.Queue(cfg) },
			Ledger:         s.Ledger(),
			Enqueue:        s.Enqueue,
			ShowEvent:      s.ShowEvent,
			SettleOutcomes: s.Ledger().SettleOutcomes,
			Retry:          s.RetryEvents,
			DB:             db,
		}
	})
}
