package endpoint

// The per-IP limit of the authentication forms and routes and of the webhooks, shared by the
// HTTP adapters (the REST API and the web pages).

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// IPLimiter gives each client IP a token bucket of perMinute requests, refilled evenly.
type IPLimiter struct {
	mu        sync.Mutex
	perMinute int
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

// NewIPLimiter is a limiter of perMinute requests per IP.
func NewIPLimiter(perMinute int) *IPLimiter {
	return &IPLimiter{perMinute: perMinute, buckets: map[string]*bucket{}, lastSweep: time.Now()}
}

// Allow spends one token of ip's bucket. Buckets idle for ten minutes are full again, so they are
// dropped to bound the map.
func (l *IPLimiter) Allow(ip string) bool {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastSweep) > 10*time.Minute {
		for k, b := range l.buckets {
			if now.Sub(b.seen) > 10*time.Minute {
				delete(l.buckets, k)
			}
		}
		l.lastSweep = now
	}
	b, ok := l.buckets[ip]
	if !ok {
		b = &bucket{lim: rate.NewLimiter(rate.Every(time.Minute/time.Duration(l.perMinute)), l.perMinute)}
		l.buckets[ip] = b
	}
	b.seen = now
	return b.lim.AllowN(now, 1)
}

// peerIP is the TCP peer's address without the port.
func peerIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// ClientIP is the address the per-IP limit keys on: the TCP peer, unless the peer is one of the
// trusted proxies, in which case X-Forwarded-For is read from the right (the entries the trusted
// proxies appended) and the first address that is not a trusted proxy is the client. Without
// trusted proxies the header is ignored, so it cannot be forged to dodge the limit; an entry a
// trusted proxy could not have written (not an IP) ends the walk at the last trusted hop.
func ClientIP(r *http.Request, trusted []netip.Prefix) string {
	peer := peerIP(r)
	if len(trusted) == 0 || !isTrusted(peer, trusted) {
		return peer
	}
	client := peer
	hops := r.Header.Values("X-Forwarded-For")
	for i := len(hops) - 1; i >= 0; i-- {
		parts := strings.Split(hops[i], ",")
		for j := len(parts) - 1; j >= 0; j-- {
			hop := strings.TrimSpace(parts[j])
			a, err := netip.ParseAddr(hop)
			if err != nil {
				return client
			}
			client = a.Unmap().String()
			if !isTrusted(client, trusted) {
				return client
			}
		}
	}
	return client
}

func isTrusted(ip string, trusted []netip.Prefix) bool {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	a = a.Unmap()
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
