package postgres_test

import (
	"os"
	"testing"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/postgres/pgtest"
	"moviesdiary/internal/adapters/postgres/postgrestest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// migratedURL is a fresh database with every migration applied.
func migratedURL(t testing.TB) string { return postgrestest.URL(t) }

// open opens a migrated store at a fresh database, closed when the test ends.
func open(t testing.TB, opts ...postgres.Option) (*postgres.Store, string) {
	return postgrestest.Open(t, opts...)
}
