package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/outbox"
	"moviesdiary/internal/outbox/outboxtest"
)

// rawDB is a second connection to the store's file, closed when the test ends.
func rawDB(t *testing.T, path string) *sqlx.DB {
	db, err := sqlx.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestOutbox runs the outbox suites (the delivery conformance suite, the relayed-row cases, the
// ledger's renewal) against the SQLite store, with a clock the suites move.
func TestOutbox(t *testing.T) {
	t.Parallel()
	outboxtest.Run(t, func(t *testing.T, clock *outboxtest.Clock) outboxtest.Outbox {
		s := sqlitetest.Open(t, filepath.Join(t.TempDir(), "outbox.db"), sqlite.WithClock(clock.Now))
		return outboxtest.Outbox{
			Queue:          func(cfg outbox.QueueConfig) outboxtest.Queue { return s.Queue(cfg) },
			Ledger:         s.Ledger(),
			Enqueue:        s.Enqueue,
			ShowEvent:      s.ShowEvent,
			SettleOutcomes: s.Ledger().SettleOutcomes,
			Retry:          s.RetryEvents,
			DB:             rawDB(t, s.Path()),
		}
	})
}
