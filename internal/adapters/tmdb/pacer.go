package tmdb

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Defaults of the client's pacing.
const (
	// RateDefault is how many API calls a client makes per second at most: under the ~50 a
	// second TMDb allows one address, so the worker's enrichment of hundreds of movies newly
	// discovered by an import is paced rather than refused.
	RateDefault = 40
	// RateBurstDefault is how many calls may go at once after a quiet spell.
	RateBurstDefault = 10
	// MaxRateWaitDefault bounds how long one call waits in all for 429s' Retry-After before it
	// gives up with a (transient) *StatusError.
	MaxRateWaitDefault = 60 * time.Second
	// retryAfterDefault is the wait after a 429 without Retry-After.
	retryAfterDefault = time.Second
)

// pacer spaces a client's API calls: a token bucket for the steady rate, and a pause every
// call waits out after a 429, so concurrent handlers back off together instead of each
// hammering TMDb on its own schedule.
type pacer struct {
	limit *rate.Limiter // nil: unlimited

	mu    sync.Mutex
	until time.Time // no call starts before this
}

func newPacer(perSecond float64, burst int) *pacer {
	p := &pacer{}
	if perSecond > 0 {
		p.limit = rate.NewLimiter(rate.Limit(perSecond), max(burst, 1))
	}
	return p
}

// wait blocks until a call may start, or ctx ends: past any pause, then through the bucket,
// then past a pause that began meanwhile.
func (p *pacer) wait(ctx context.Context) error {
	for waited := false; ; waited = true {
		p.mu.Lock()
		d := time.Until(p.until)
		p.mu.Unlock()
		if d <= 0 && waited {
			return nil
		}
		if d > 0 {
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
		if p.limit != nil {
			if err := p.limit.Wait(ctx); err != nil {
				return err
			}
		}
	}
}

// pause holds every call for d from now (a 429's Retry-After).
func (p *pacer) pause(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if at := time.Now().Add(d); at.After(p.until) {
		p.until = at
	}
}
