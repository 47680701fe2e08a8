package sqlite_test

import (
	"testing"

	"moviesdiary/internal/adapters/storetest"
)

// TestSearchSuite runs the shared full-text search cases (storetest) against this store: the
// same queries rank the same results first on both stores.
func TestSearchSuite(t *testing.T) {
	t.Parallel()
	storetest.RunSearch(t, func(t *testing.T, f *storetest.Faults) storetest.Search { return openForSuite(t, f) })
}
