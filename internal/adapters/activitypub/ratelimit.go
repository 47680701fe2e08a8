package activitypub

import (
	"errors"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Per-remote-host limits of signed requests (inbox POSTs, secure-mode GETs), checked before any
// key is fetched. They are sized for real servers, not for a test peer: a large instance
// delivers a burst of hundreds of activities when a popular account posts or a relay forwards,
// and sustains tens a second, so a host gets a bucket of InboxBurstDefault refilled at
// InboxRateDefault a second (the original allowed 30 a minute, which throttles any busy peer).
const (
	InboxRateDefault  = 50
	InboxBurstDefault = 500
	// limiterIdle is how long a host's bucket is kept after its last request.
	limiterIdle = 10 * time.Minute
)

// errRateLimited marks a request refused because its host is over its rate (answered 429).
var errRateLimited = errors.New("remote host over its request rate")

// hostLimiter is a token bucket per remote host. Buckets idle for limiterIdle are dropped on the
// next sweep, so the map stays as small as the set of active peers.
type hostLimiter struct {
	rate  rate.Limit
	burst int
	now   func() time.Time

	mu        sync.Mutex
	hosts     map[string]*hostBucket
	lastSweep time.Time
}

type hostBucket struct {
	lim  *rate.Limiter
	seen time.Time
}

// newHostLimiter allows perSecond requests a second per host, in bursts of burst; perSecond < 0
// turns the limit off.
func newHostLimiter(perSecond float64, burst int, now func() time.Time) *hostLimiter {
	l := &hostLimiter{rate: rate.Limit(perSecond), burst: burst, now: now, hosts: map[string]*hostBucket{}}
	if perSecond < 0 {
		l.rate = rate.Inf
	}
	return l
}

// limiterKey is the bucket of a key id: its host with the port (two servers on one address are
// two peers).
func limiterKey(keyID string) string {
	u, err := url.Parse(keyID)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Host)
}

// allow takes one token of host's bucket, reporting false when it is empty.
func (l *hostLimiter) allow(host string) bool {
	if l.rate == rate.Inf {
		return true
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastSweep) > limiterIdle {
		for h, b := range l.hosts {
			if now.Sub(b.seen) > limiterIdle {
				delete(l.hosts, h)
			}
		}
		l.lastSweep = now
	}
	b := l.hosts[host]
	if b == nil {
		b = &hostBucket{lim: rate.NewLimiter(l.rate, l.burst)}
		l.hosts[host] = b
	}
	b.seen = now
	return b.lim.AllowN(now, 1)
}
