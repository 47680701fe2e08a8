// Package postgrestest opens migrated PostgreSQL stores for tests, on the test binary's
// throwaway cluster: a package that uses it calls pgtest.Main from its TestMain.
package postgrestest

import (
	"context"
	"log/slog"
	"testing"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/postgres/pgtest"
)

// Template is the name of the migrated template database every URL is copied from.
const Template = "migrated"

// URL creates a fresh database with every migration applied (a copy of a template migrated once
// per test binary), dropped when the test ends, and returns its URL.
func URL(t testing.TB) string {
	t.Helper()
	return pgtest.FromTemplate(t, Template, func(ctx context.Context, url string) error {
		s, err := postgres.OpenMigrated(ctx, url, slog.New(slog.DiscardHandler))
		if err != nil {
			return err
		}
		return s.Close()
	})
}

// Open opens a store with opts (a fake clock, a pool size) on a fresh migrated database, closes
// it when the test ends, and fails the test on any error. It returns the database's URL too, for
// a second store on the same database (a second host).
func Open(t testing.TB, opts ...postgres.Option) (*postgres.Store, string) {
	t.Helper()
	url := URL(t)
	s, err := postgres.Open(context.Background(), url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, url
}
