package postgres_test

import (
	"testing"

	"moviesdiary/internal/adapters/storetest"
)

// TestCatalogSuite runs the shared enrichment, catalog and poster cases (storetest) against
// PostgreSQL.
func TestCatalogSuite(t *testing.T) {
	t.Parallel()
	storetest.RunCatalog(t, func(t *testing.T, f *storetest.Faults) storetest.Catalog { return openForSuite(t, f) })
}
