package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/adapters/storetest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// openForSuite opens a migrated store in a fresh file whose enqueue fails while faults are on
// (before or after writing the rows).
func openForSuite(t *testing.T, faults *storetest.Faults) *sqlite.Store {
	return sqlitetest.Open(t, filepath.Join(t.TempDir(), "suite.db"), sqlite.WithEnqueue(
		func(ctx context.Context, tx *sqlx.Tx, now time.Time, events ...domain.Event) error {
			if err := faults.Err(); err != nil {
				return err
			}
			if err := outbox.Insert(ctx, tx, now, events...); err != nil {
				return err
			}
			return faults.ErrAfter()
		}))
}

// TestStoreSuite runs the shared repository suite (storetest) against SQLite.
func TestStoreSuite(t *testing.T) {
	t.Parallel()
	storetest.RunStore(t, openForSuite)
}
