package sqlite_test

import (
	"testing"

	"moviesdiary/internal/adapters/storetest"
)

// TestWrapUpGenerationSuite runs the shared wrap-up generation, goal write and settings cases (storetest) against this
// store.
func TestWrapUpGenerationSuite(t *testing.T) {
	t.Parallel()
	t.Run("WrapUpGeneration", func(t *testing.T) {
		storetest.RunWrapUpGeneration(t, func(t *testing.T, f *storetest.Faults) storetest.WrapUpGeneration { return openForSuite(t, f) })
	})
	t.Run("GoalWrites", func(t *testing.T) {
		storetest.RunGoalWrites(t, func(t *testing.T, f *storetest.Faults) storetest.GoalWrites { return openForSuite(t, f) })
	})
}
