package sqlite_test

import (
	"path/filepath"
	"testing"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/outbox"
	"moviesdiary/internal/outbox/outboxtest"
)

// TestOutbox runs the outbox suites (the delivery conformance suite, the relayed-row cases, the
// ledger's renewal) against the SQLite store, with a clock the suites move.
func TestOutbox(t *testing.T) {
	t.Parallel()
	outboxtest.Run(t, func(t *testing.T, clock *outboxtest.Clock) outboxtest.Outbox {
		s := sqlitetest.Open(t, filepath.Join(t.TempDir(), "outbox.db"), sqlite.WithClock(clock.Now))
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
