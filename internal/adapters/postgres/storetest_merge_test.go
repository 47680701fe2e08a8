package postgres_test

import (
	"testing"

	"moviesdiary/internal/adapters/storetest"
)

// TestMergeSuite runs the shared movie merge cases (storetest) against PostgreSQL.
func TestMergeSuite(t *testing.T) {
	t.Parallel()
	storetest.RunMerge(t, func(t *testing.T, f *storetest.Faults) storetest.Merge { return openForSuite(t, f) })
}
