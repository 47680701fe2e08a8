// Package sqlitetest opens migrated stores for the tests of other packages.
package sqlitetest

import (
	"context"
	"log/slog"
	"testing"

	"moviesdiary/internal/adapters/sqlite"
)

// Open opens the database at path, migrated, with opts (a fake clock, an enqueue override),
// closes it when the test ends, and fails the test on any error.
func Open(t testing.TB, path string, opts ...sqlite.Option) *sqlite.Store {
	t.Helper()
	s, err := sqlite.OpenMigrated(context.Background(), path, slog.New(slog.DiscardHandler), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
