package federation

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"moviesdiary/internal/domain"
)

// httpFailure is a remote's answer as the ActivityPub client reports it.
type httpFailure struct {
	status int
	wait   time.Duration
}

func (e httpFailure) Error() string                     { return fmt.Sprintf("answered %d", e.status) }
func (e httpFailure) HTTPStatus() int                   { return e.status }
func (e httpFailure) RetryAfter() (time.Duration, bool) { return e.wait, e.wait > 0 }

func TestJudge(t *testing.T) {
	for _, c := range []struct {
		err   error
		want  Verdict
		pause time.Duration
	}{
		{httpFailure{status: 500}, Retry, 0},
		{httpFailure{status: 502}, Retry, 0},
		{httpFailure{status: 503, wait: time.Minute}, Retry, time.Minute},
		{httpFailure{status: 408}, Retry, 0},
		{httpFailure{status: 429, wait: 15 * time.Minute}, Retry, 15 * time.Minute},
		{fmt.Errorf("deliver: %w", httpFailure{status: 429}), Retry, 0},
		{httpFailure{status: 400}, Dead, 0},
		{httpFailure{status: 401}, Dead, 0},
		{httpFailure{status: 404}, Dead, 0},
		{domain.Permanent(fmt.Errorf("deliver: %w", httpFailure{status: 403})), Dead, 0},
		{httpFailure{status: 410}, Gone, 0},
		{domain.Permanent(fmt.Errorf("deliver: %w", httpFailure{status: 410})), Gone, 0},
		{&net.OpError{Op: "dial", Err: errors.New("connection refused")}, Retry, 0},
		{&net.DNSError{Err: "no such host", Name: "gone.example", IsNotFound: true}, Retry, 0},
		{context.DeadlineExceeded, Retry, 0},
		{domain.Permanent(errors.New("address not allowed for federation")), Dead, 0},
	} {
		v, pause := Judge(c.err)
		if v != c.want || pause != c.pause {
			t.Errorf("Judge(%v) = %v, %v; want %v, %v", c.err, v, pause, c.want, c.pause)
		}
	}
}

// TestBackoffCoversTheWindow: the pauses double from 30 s to 6 h with ±20 % jitter, a longer
// Retry-After wins (up to 24 h), and even with the shortest jitter the attempts a transient
// failure gets reach past the 48-hour window rather than giving up early.
func TestBackoffCoversTheWindow(t *testing.T) {
	p := Policy{}
	if d := p.Backoff(1, 0, 0.5); d != 30*time.Second {
		t.Errorf("first pause %v, want 30s", d)
	}
	if d := p.Backoff(2, 0, 0.5); d != time.Minute {
		t.Errorf("second pause %v, want 1m", d)
	}
	if lo, hi := p.Backoff(3, 0, 0), p.Backoff(3, 0, 0.999999); lo != 96*time.Second || hi < 143*time.Second || hi > 144*time.Second {
		t.Errorf("third pause jitter %v..%v, want 96s..144s", lo, hi)
	}
	if d := p.Backoff(40, 0, 0.5); d != 6*time.Hour {
		t.Errorf("a late pause %v, want the 6h cap", d)
	}
	if d := p.Backoff(1, 15*time.Minute, 0.5); d != 15*time.Minute {
		t.Errorf("with Retry-After 15m: %v", d)
	}
	if d := p.Backoff(1, 72*time.Hour, 0.5); d != 24*time.Hour {
		t.Errorf("with Retry-After 72h: %v, want the 24h bound", d)
	}
	if d := p.Backoff(12, time.Second, 0.5); d != 6*time.Hour {
		t.Errorf("a Retry-After shorter than the schedule: %v", d)
	}
	var elapsed time.Duration
	attempts := 0
	for elapsed < 48*time.Hour {
		attempts++
		elapsed += p.Backoff(attempts, 0, 0)
	}
	if attempts < 12 || attempts > 25 {
		t.Errorf("%d attempts within 48h at the shortest jitter", attempts)
	}
}

// TestHostHealth: failures open the circuit at OpenAfter with a cool-off doubling to its cap,
// and a host failing for UnavailableAfter becomes unavailable (probed every ProbeEvery).
func TestHostHealth(t *testing.T) {
	p := Policy{}
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	h := HostHealth{Host: "a.example", State: HostAvailable}
	for i := 1; i < 10; i++ {
		h.Failures = i
		h = p.Failed(h, t0.Add(time.Duration(i)*time.Minute))
		if h.State != HostAvailable {
			t.Fatalf("after %d failures: %s", i, h.State)
		}
	}
	if !h.FailingSince.Equal(t0.Add(time.Minute)) {
		t.Errorf("failing since %v, want the first failure", h.FailingSince)
	}
	at := t0.Add(time.Hour)
	h.Failures = 10
	h = p.Failed(h, at)
	if h.State != HostOpen || !h.OpenUntil.Equal(at.Add(time.Minute)) {
		t.Fatalf("at 10 failures: %s until %v", h.State, h.OpenUntil)
	}
	h.Failures = 12
	if h = p.Failed(h, at); !h.OpenUntil.Equal(at.Add(4 * time.Minute)) {
		t.Errorf("at 12 failures the cool-off is %v, want 4m", h.OpenUntil.Sub(at))
	}
	h.Failures = 30
	if h = p.Failed(h, at); !h.OpenUntil.Equal(at.Add(time.Hour)) {
		t.Errorf("at 30 failures the cool-off is %v, want the 1h cap", h.OpenUntil.Sub(at))
	}
	late := h.FailingSince.Add(48 * time.Hour)
	h = p.Failed(h, late)
	if h.State != HostUnavailable || !h.NextProbeAt.Equal(late.Add(6*time.Hour)) || !h.OpenUntil.IsZero() {
		t.Errorf("after 48h of failures: %+v", h)
	}
}
