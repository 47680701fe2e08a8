package postgres_test

import (
	"testing"

	"moviesdiary/internal/adapters/storetest"
)

// TestWrapUpsSuite runs the shared wrap-up, goal and settings cases (storetest) against this
// store.
func TestWrapUpsSuite(t *testing.T) {
	t.Parallel()
	t.Run("WrapUps", func(t *testing.T) {
		storetest.RunWrapUps(t, func(t *testing.T, f *storetest.Faults) storetest.WrapUps { return openForSuite(t, f) })
	})
	t.Run("Goals", func(t *testing.T) {
		storetest.RunGoals(t, func(t *testing.T, f *storetest.Faults) storetest.Goals { return openForSuite(t, f) })
	})
}
