package postgres_test

import (
	"testing"

	"moviesdiary/internal/adapters/storetest"
)

// TestTextSuite runs the shared text rule cases (storetest) against PostgreSQL.
func TestTextSuite(t *testing.T) {
	t.Parallel()
	storetest.RunText(t, func(t *testing.T) storetest.Text { return openForSuite(t, &storetest.Faults{}) })
}
