package postgres_test

import (
	"testing"

	"moviesdiary/internal/adapters/storetest"
)

// TestResolutionSuite runs the shared movie resolution cases (storetest) against PostgreSQL.
func TestResolutionSuite(t *testing.T) {
	t.Parallel()
	storetest.RunResolution(t, func(t *testing.T, f *storetest.Faults) storetest.Resolution { return openForSuite(t, f) })
}
