package auth

import (
	"context"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"moviesdiary/internal/domain"
)

// hashGate bounds how many password hashes run at once: each argon2id hash allocates its memory
// (19 MiB with DefaultHasher), so without a bound 60 concurrent logins of unknown accounts cost
// over a gigabyte. A request waits up to its wait for a slot, then is refused as unavailable
// (503 with Retry-After), never queued without end.
type hashGate struct {
	slots chan struct{}
	wait  time.Duration

	mu      sync.Mutex
	running int
	peak    int // the most hashes that ran at once (tests)
}

// HashWaitDefault is how long a login or registration waits for a hashing slot.
const HashWaitDefault = 5 * time.Second

// hashMemoryShare is the share of the Go memory limit (GOMEMLIMIT) hashes may take together;
// without a limit they may take hashMemoryDefault.
const (
	hashMemoryShare   = 4
	hashMemoryDefault = 256 << 20
)

// DefaultHashConcurrency is how many hashes of h may run at once: as many as there are CPUs
// (argon2id is CPU-bound, more would only queue inside the scheduler), at least 2, and no more
// than fit in a quarter of GOMEMLIMIT (or 256 MiB without one).
func DefaultHashConcurrency(h Hasher) int {
	budget := int64(hashMemoryDefault)
	if limit := debug.SetMemoryLimit(-1); limit > 0 && limit < 1<<62 {
		budget = limit / hashMemoryShare
	}
	fit := int(budget / max(1, int64(h.Memory)*1024))
	return max(1, min(max(2, runtime.GOMAXPROCS(0)), fit))
}

func newHashGate(n int, wait time.Duration) *hashGate {
	return &hashGate{slots: make(chan struct{}, max(1, n)), wait: wait}
}

// do runs f in a slot, waiting at most the gate's wait (or until ctx ends) for one.
func (g *hashGate) do(ctx context.Context, f func()) error {
	t := time.NewTimer(g.wait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
	case <-t.C:
		return &domain.UnavailableError{What: "password checking", RetryAfter: 2 * time.Second}
	case <-ctx.Done():
		return ctx.Err()
	}
	g.mu.Lock()
	g.running++
	g.peak = max(g.peak, g.running)
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.running--
		g.mu.Unlock()
		<-g.slots
	}()
	f()
	return nil
}
