package postgres_test

import (
	"testing"

	"moviesdiary/internal/adapters/storetest"
)

// TestFederationSuite runs the shared federation store cases (storetest.RunFederation) against
// PostgreSQL.
func TestFederationSuite(t *testing.T) {
	t.Parallel()
	storetest.RunFederation(t, func(t *testing.T, f *storetest.Faults) storetest.Federation { return openForSuite(t, f) })
}
