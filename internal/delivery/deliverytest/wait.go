package deliverytest

import (
	"log/slog"
	"testing"
	"time"
)

// Eventually polls cond every few milliseconds until it holds, and fails the test if it still
// does not after within. It is the one way these tests wait: never a bare sleep.
func Eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %s: still waiting for %s", within, what)
		}
		<-tick.C
	}
}

// Logger writes a test's logs to its output (shown with -v or when it fails), at info level.
func Logger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelInfo}))
}
