package sqlite_test

import (
	"testing"

	"moviesdiary/internal/adapters/storetest"
)

// TestFederationSuite runs the shared federation store cases (storetest.RunFederation) against
// SQLite.
func TestFederationSuite(t *testing.T) {
	t.Parallel()
	storetest.RunFederation(t, func(t *testing.T, f *storetest.Faults) storetest.Federation { return openForSuite(t, f) })
}
