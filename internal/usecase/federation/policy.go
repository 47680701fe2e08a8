package federation

import (
	"errors"
	"math/rand/v2"
	"net/http"
	"time"

	"moviesdiary/internal/domain"
)

// Policy is how patiently the delivery lane treats the fediverse's weather
// (docs/adr/0005-federation-delivery.md). Zero fields take the defaults.
type Policy struct {
	// RetryWindow is how long a delivery that keeps failing transiently is retried, counted
	// from its first failure, before it is dead-lettered (only while its host answers other
	// deliveries; a host that answers nothing is waited for, then parked). Default 48 h.
	RetryWindow time.Duration
	// FirstRetry is the first pause after a failure; each next one doubles, up to MaxRetry.
	// Defaults 30 s and 6 h; each pause is jittered by ±20 %.
	FirstRetry, MaxRetry time.Duration
	// MaxRetryAfter bounds how long a Retry-After answer may hold a delivery. Default 24 h.
	MaxRetryAfter time.Duration
	// OpenAfter is how many consecutive failures of a host open its circuit: its deliveries
	// wait without being attempted until a cool-off of CoolOff, doubling with each further
	// failure up to MaxCoolOff, then one at a time probe it. Defaults 10, 1 min, 1 h.
	OpenAfter           int
	CoolOff, MaxCoolOff time.Duration
	// UnavailableAfter is how long a host may fail without a single success before it is
	// unavailable: its deliveries are parked (no attempts, no window) and one is tried every
	// ProbeEvery until the host is seen alive. Defaults 48 h and 6 h.
	UnavailableAfter, ProbeEvery time.Duration
	// ParkedFor bounds how long a delivery stays parked before it is dead-lettered, so a host
	// gone for good does not keep its deliveries for ever. Default 30 days.
	ParkedFor time.Duration
}

// withDefaults fills the zero fields.
func (p Policy) withDefaults() Policy {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&p.RetryWindow, 48*time.Hour)
	def(&p.FirstRetry, 30*time.Second)
	def(&p.MaxRetry, 6*time.Hour)
	def(&p.MaxRetryAfter, 24*time.Hour)
	def(&p.CoolOff, time.Minute)
	def(&p.MaxCoolOff, time.Hour)
	def(&p.UnavailableAfter, 48*time.Hour)
	def(&p.ProbeEvery, 6*time.Hour)
	def(&p.ParkedFor, 30*24*time.Hour)
	if p.OpenAfter <= 0 {
		p.OpenAfter = 10
	}
	return p
}

// Verdict is what one failed attempt means for its delivery.
type Verdict int

// The verdicts of a failed attempt.
const (
	Retry Verdict = iota + 1 // transient: try again later
	Dead                     // permanent, or retried for the whole window: give up
	Gone                     // 410 Gone: give up, and drop the follower behind the inbox
)

// HTTPFailure is a delivery error that carries the remote's answer: its status, and the pause it
// asked for (Retry-After) if any. The ActivityPub client's errors implement it.
type HTTPFailure interface {
	HTTPStatus() int
	RetryAfter() (time.Duration, bool)
}

// Judge classifies a failed attempt: 410 is Gone; another 4xx but 408 and 429 (and any error
// marked domain.Permanent: a refused address, a malformed inbox) is Dead; the rest — 5xx, 408,
// 429, timeouts, refused connections, DNS failures — is Retry. retryAfter is the pause the
// remote asked for.
func Judge(err error) (v Verdict, retryAfter time.Duration) {
	var hf HTTPFailure
	if errors.As(err, &hf) {
		s := hf.HTTPStatus()
		switch {
		case s == http.StatusGone:
			return Gone, 0
		case s >= 400 && s < 500 && s != http.StatusRequestTimeout && s != http.StatusTooManyRequests:
			return Dead, 0
		}
		d, _ := hf.RetryAfter()
		return Retry, d
	}
	if domain.IsPermanent(err) {
		return Dead, 0
	}
	return Retry, 0
}

// Backoff is the pause after a delivery's attempts-th failure: FirstRetry doubling, capped at
// MaxRetry, jittered by ±20 % with r (a number in [0, 1)); a Retry-After the remote asked for
// wins when longer, up to MaxRetryAfter.
func (p Policy) Backoff(attempts int, retryAfter time.Duration, r float64) time.Duration {
	p = p.withDefaults()
	d := p.FirstRetry
	for i := 1; i < attempts && d < p.MaxRetry; i++ {
		d *= 2
	}
	d = min(d, p.MaxRetry)
	d = time.Duration(float64(d) * (0.8 + 0.4*r))
	if retryAfter > d {
		d = min(retryAfter, p.MaxRetryAfter)
	}
	return d
}

// HostHealth is a remote host's record, as the lane keeps it.
type HostHealth struct {
	Host          string
	State         HostState
	Failures      int // consecutive
	FailingSince  time.Time
	OpenUntil     time.Time
	NextProbeAt   time.Time
	LastSuccessAt time.Time
	LastFailureAt time.Time
	LastError     string
	Waiting       int // deliveries pending or parked (read by Hosts)
}

// HostState is a host's place in the lane's circuit.
type HostState string

// The host states.
const (
	HostAvailable   HostState = "available"
	HostOpen        HostState = "open"        // failing: not attempted until OpenUntil, then probed
	HostUnavailable HostState = "unavailable" // failing for UnavailableAfter: deliveries parked
)

// Failed is a host's record after one more failure at now, as the policy decides it: counted,
// the circuit opened at OpenAfter failures (cool-off doubling per further failure), unavailable
// once it has failed without a success for UnavailableAfter.
func (p Policy) Failed(h HostHealth, now time.Time) HostHealth {
	p = p.withDefaults()
	if h.FailingSince.IsZero() {
		h.FailingSince = now
	}
	h.LastFailureAt = now
	switch {
	case h.State == HostUnavailable || now.Sub(h.FailingSince) >= p.UnavailableAfter:
		h.State, h.OpenUntil, h.NextProbeAt = HostUnavailable, time.Time{}, now.Add(p.ProbeEvery)
	case h.Failures >= p.OpenAfter:
		cool := p.CoolOff
		for i := p.OpenAfter; i < h.Failures && cool < p.MaxCoolOff; i++ {
			cool *= 2
		}
		h.State, h.OpenUntil = HostOpen, now.Add(min(cool, p.MaxCoolOff))
	}
	return h
}

// jitter is the lane's source of jitter: math/rand's, which needs no seeding.
func jitter() float64 { return rand.Float64() }
