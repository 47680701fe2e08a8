package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"moviesdiary/internal/adapters/sqlstore/dialecttest"
)

// TestDialect holds SQLite's spellings of the shared store's seam against a live database.
func TestDialect(t *testing.T) {
	t.Parallel()
	s := openStore(t, filepath.Join(t.TempDir(), "dialect.db"))
	if err := s.Migrate(context.Background(), testLogger(t)); err != nil {
		t.Fatal(err)
	}
	dialecttest.Run(t, s.read, dialect{s})
}
