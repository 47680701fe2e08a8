package sqlite_test

import (
	"testing"

	"moviesdiary/internal/adapters/storetest"
)

// TestImportsSuite runs the shared diary import cases (storetest) against SQLite.
func TestImportsSuite(t *testing.T) {
	t.Parallel()
	storetest.RunImports(t, func(t *testing.T, f *storetest.Faults) storetest.Imports { return openForSuite(t, f) })
}
