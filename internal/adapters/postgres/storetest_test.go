package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/storetest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// openForSuite opens a store on a fresh migrated database whose enqueue fails while faults are
// on (before or after writing the rows).
func openForSuite(t *testing.T, faults *storetest.Faults) *postgres.Store {
	s, _ := open(t, postgres.WithEnqueue(func(ctx context.Context, tx *sqlx.Tx, now time.Time, events ...domain.Event) error {
		if err := faults.Err(); err != nil {
			return err
		}
		if err := outbox.Insert(ctx, tx, now, events...); err != nil {
			return err
		}
		return faults.ErrAfter()
	}))
	return s
}

// TestStoreSuite runs the shared repository suite (storetest) against PostgreSQL.
func TestStoreSuite(t *testing.T) {
	t.Parallel()
	storetest.RunStore(t, openForSuite)
}
