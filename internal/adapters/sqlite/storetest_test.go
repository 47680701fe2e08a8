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
)

// openForSuite opens a migrated store in a fresh file whose enqueue fails while faults are on
// (before or after writing the rows).
func openForSuite(t *testing.T, faults *storetest.Faults) *sqlite.Store {
	return sqlitetest.Open(t, filepath.Join(t.TempDir(), "suite.db"), sqlite.WithEnqueue(
		func(ctx context.Context, tx *sqlx.Tx, now time.Time, events ...domain.Event) error {
			if err := faults.Err(); err != nil {
				return err
			}
			if err := sqlite.EnqueueEvents(ctx, tx, now, events...); err != nil {
				return err
			}
			return faults.ErrAfter()
		}))
}

// TestStoreSuite runs the shared repository suite (storetest) against SQLite.
func TestStoreSuite(t *testing.T) {
	t.Parallel()
	t.Run("Users", func(t *testing.T) {
		storetest.RunUsers(t, func(t *testing.T, f *storetest.Faults) storetest.Users { return openForSuite(t, f) })
	})
	t.Run("UserAdmin", func(t *testing.T) {
		storetest.RunUserAdmin(t, func(t *testing.T, f *storetest.Faults) storetest.UserAdmin { return openForSuite(t, f) })
	})
	t.Run("Reviews", func(t *testing.T) {
		storetest.RunReviews(t, func(t *testing.T, f *storetest.Faults) storetest.Reviews { return openForSuite(t, f) })
	})
	t.Run("Movies", func(t *testing.T) {
		storetest.RunMovies(t, func(t *testing.T, f *storetest.Faults) storetest.Movies { return openForSuite(t, f) })
	})
	t.Run("Goals", func(t *testing.T) {
		storetest.RunGoals(t, func(t *testing.T, f *storetest.Faults) storetest.Goals { return openForSuite(t, f) })
	})
	t.Run("WrapUps", func(t *testing.T) {
		storetest.RunWrapUps(t, func(t *testing.T, f *storetest.Faults) storetest.WrapUps { return openForSuite(t, f) })
	})
	t.Run("DomainBlocks", func(t *testing.T) {
		storetest.RunDomainBlocks(t, func(t *testing.T, f *storetest.Faults) storetest.DomainBlocks { return openForSuite(t, f) })
	})
	t.Run("Images", func(t *testing.T) {
		storetest.RunImages(t, func(t *testing.T, f *storetest.Faults) storetest.Images { return openForSuite(t, f) })
	})
	t.Run("WatchQueue", func(t *testing.T) {
		storetest.RunWatchQueue(t, func(t *testing.T, f *storetest.Faults) storetest.WatchQueue { return openForSuite(t, f) })
	})
	t.Run("Inbound", func(t *testing.T) {
		storetest.RunInbound(t, func(t *testing.T, f *storetest.Faults) storetest.Inbound { return openForSuite(t, f) })
	})
	t.Run("Social", func(t *testing.T) {
		storetest.RunSocial(t, func(t *testing.T, f *storetest.Faults) storetest.Social { return openForSuite(t, f) })
	})
	t.Run("Watchlist", func(t *testing.T) {
		storetest.RunWatchlist(t, func(t *testing.T, f *storetest.Faults) storetest.Watchlist { return openForSuite(t, f) })
	})
	t.Run("EventsSince", func(t *testing.T) {
		storetest.RunEventsSince(t, func(t *testing.T, f *storetest.Faults) storetest.EventCounter { return openForSuite(t, f) })
	})
	t.Run("AtomicWrites", func(t *testing.T) {
		storetest.RunAtomicWrites(t, func(t *testing.T, f *storetest.Faults) storetest.AtomicWrites { return openForSuite(t, f) })
	})
}
