package app_test

import (
	"os"
	"testing"

	"moviesdiary/internal/adapters/postgres/pgtest"
)

// TestMain runs the tests, some on a throwaway PostgreSQL cluster it stops at the end.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
