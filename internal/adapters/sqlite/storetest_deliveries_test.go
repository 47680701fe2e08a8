package sqlite_test

import (
	"testing"

	"moviesdiary/internal/adapters/storetest"
)

// TestDeliveriesSuite runs the shared federation delivery queue cases (storetest) against this
// store.
func TestDeliveriesSuite(t *testing.T) {
	t.Parallel()
	storetest.RunDeliveries(t, func(t *testing.T, f *storetest.Faults) storetest.Deliveries { return openForSuite(t, f) })
}
