package delivery

import (
	"context"
	"time"
)

// The bounds of Backoff: a failed database or broker call is retried after 10 ms, then after
// twice as long each time it fails again, up to 5 s.
const (
	RetryPauseMin = 10 * time.Millisecond
	RetryPauseMax = 5 * time.Second
)

// Backoff is the growing pause between retries of a failed database or broker call (a claim, a
// wait, a settle). It is not the delivery backoff of a failed handler, which is
// domain.RetryBackoff. The zero value is ready to use.
type Backoff struct{ next time.Duration }

// Next returns the pause before the next retry and doubles the one after it.
func (b *Backoff) Next() time.Duration {
	d := max(b.next, RetryPauseMin)
	b.next = min(2*d, RetryPauseMax)
	return d
}

// Reset starts the pauses again from RetryPauseMin, after a call succeeded.
func (b *Backoff) Reset() { b.next = 0 }

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
