package delivery_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a goroutine outlives the tests: every pump must have stopped.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
