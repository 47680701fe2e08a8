package postgres_test

import (
	"testing"

	"moviesdiary/internal/adapters/storetest"
)

// TestIdentitiesSuite runs the shared single sign-on identity cases (storetest) against PostgreSQL.
func TestIdentitiesSuite(t *testing.T) {
	t.Parallel()
	storetest.RunIdentities(t, func(t *testing.T, f *storetest.Faults) storetest.Identities { return openForSuite(t, f) })
}
