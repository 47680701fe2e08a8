package postgres

import (
	"context"
	"log/slog"
	"testing"

	"moviesdiary/internal/adapters/postgres/pgtest"
	"moviesdiary/internal/adapters/sqlstore/dialecttest"
)

// TestDialect holds PostgreSQL's spellings of the shared store's seam against a live database.
func TestDialect(t *testing.T) {
	t.Parallel()
	s, err := Open(context.Background(), migratedURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dialecttest.Run(t, s.db, &dialect{s: s})
}

// migratedURL is a fresh database of the migrated template, for this package's own tests (which
// cannot import postgrestest).
func migratedURL(t *testing.T) string {
	return pgtest.FromTemplate(t, "migrated", func(ctx context.Context, url string) error {
		s, err := OpenMigrated(ctx, url, slog.New(slog.DiscardHandler))
		if err != nil {
			return err
		}
		return s.Close()
	})
}
