package postgres_test

import (
	"context"
	"log/slog"
	"os"
	"testing"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/postgres/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// migratedURL is a fresh database with every migration applied, copied from a template the
// first caller migrates.
func migratedURL(t testing.TB) string {
	t.Helper()
	return pgtest.FromTemplate(t, "migrated", func(ctx context.Context, url string) error {
		s, err := postgres.OpenMigrated(ctx, url, slog.New(slog.DiscardHandler))
		if err != nil {
			return err
		}
		return s.Close()
	})
}

// open opens a migrated store at a fresh database, closed when the test ends.
func open(t testing.TB, opts ...postgres.Option) (*postgres.Store, string) {
	t.Helper()
	url := migratedURL(t)
	s, err := postgres.Open(context.Background(), url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, url
}
