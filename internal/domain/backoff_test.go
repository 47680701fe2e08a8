package domain_test

import (
	"testing"
	"time"

	"moviesdiary/internal/domain"
)

// TestRetryBackoffSchedule pins the decision record's schedule: 5 s doubling per failed
// delivery, capped at 300 s. Raising the cap or moving the base fails here.
func TestRetryBackoffSchedule(t *testing.T) {
	t.Parallel()
	want := []time.Duration{5, 10, 20, 40, 80, 160, 300, 300, 300}
	for i, w := range want {
		n := i + 1
		if got := domain.RetryBackoff(n); got != w*time.Second {
			t.Errorf("RetryBackoff(%d) = %s, want %s", n, got, w*time.Second)
		}
	}
	if got := domain.RetryBackoff(1000); got != 300*time.Second {
		t.Errorf("RetryBackoff(1000) = %s, want the 300 s cap", got)
	}
	if got := domain.RetryBackoff(0); got != 5*time.Second {
		t.Errorf("RetryBackoff(0) = %s, want the first delay", got)
	}
}

// TestScaledBackoffKeepsTheShape: a shrunk base (tests, benchmarks) keeps the same doubling and
// a cap at 60 × base.
func TestScaledBackoffKeepsTheShape(t *testing.T) {
	t.Parallel()
	base := 10 * time.Millisecond
	for n, want := range map[int]time.Duration{1: base, 2: 2 * base, 7: 60 * base, 20: 60 * base} {
		if got := domain.ScaledBackoff(base, n); got != want {
			t.Errorf("ScaledBackoff(%s, %d) = %s, want %s", base, n, got, want)
		}
	}
}
