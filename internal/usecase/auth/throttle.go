package auth

import (
	"cmp"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
)

// The per-account login throttle's schedule: LoginFreeAttempts attempts, then each further
// attempt waits LoginBackoffBase doubling per attempt, capped at LoginBackoffMax; an account
// with no attempt for LoginForgetAfter starts over, and a successful login starts over at once.
const (
	LoginFreeAttempts = 5
	LoginBackoffBase  = time.Second
	// LoginBackoffMax bounds how long anyone can keep an account's owner out: at worst the owner
	// waits this long after the attacker's last guess, while the attacker gets two guesses a
	// minute per account whatever the number of addresses it guesses from.
	LoginBackoffMax  = 30 * time.Second
	LoginForgetAfter = 15 * time.Minute
)

// loginThrottleMax bounds the accounts remembered; beyond it, forgotten ones are dropped.
const loginThrottleMax = 100_000

// ThrottledError refuses a login attempt that came before its account's back-off ended.
type ThrottledError struct {
	// RetryAfter is how long until the account may try again.
	RetryAfter time.Duration
	// What is what came too often; empty for login attempts on one account.
	What string
}

// Error says when to try again, in whole seconds.
func (e *ThrottledError) Error() string {
	return fmt.Sprintf("Too many %s: try again in %d s", cmp.Or(e.What, "login attempts for this account"), retrySeconds(e.RetryAfter))
}

// retrySeconds rounds d up to whole seconds, at least 1 (what a Retry-After header says).
func retrySeconds(d time.Duration) int { return max(1, int(math.Ceil(d.Seconds()))) }

// RetryAfterSeconds is RetryAfter for a Retry-After header: whole seconds, rounded up, at least 1.
func (e *ThrottledError) RetryAfterSeconds() int { return retrySeconds(e.RetryAfter) }

// loginThrottle counts the login attempts per account (the normalised e-mail, whether or not
// such an account exists, so the throttle tells nothing about which ones do). It complements the
// per-IP limit of the HTTP layer, which an attacker with many addresses walks around. Attempts
// are counted when they start, so parallel guesses are throttled too; a rejected attempt does not
// count and does not extend the wait.
type loginThrottle struct {
	now       func() time.Time
	mu        sync.Mutex
	accounts  map[string]*attempts
	lastSweep time.Time
}

type attempts struct {
	n     int       // n is the attempts since the last success or the last forgetting
	last  time.Time // last is the latest attempt
	until time.Time // until is when the next attempt may start
}

func newLoginThrottle(now func() time.Time) *loginThrottle {
	return &loginThrottle{now: now, accounts: map[string]*attempts{}, lastSweep: now()}
}

// accountKey is the throttle's key of an e-mail as typed.
func accountKey(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// begin starts an attempt for the account, or refuses it with the wait left.
func (t *loginThrottle) begin(email string) error {
	key, now := accountKey(email), t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	// Sweep every LoginForgetAfter, or at most once a second while the map is at its bound, so a
	// flood of distinct e-mails cannot make every attempt walk the whole map.
	if since := now.Sub(t.lastSweep); since > LoginForgetAfter || len(t.accounts) >= loginThrottleMax && since > time.Second {
		for k, a := range t.accounts {
			if now.Sub(a.last) > LoginForgetAfter && !now.Before(a.until) {
				delete(t.accounts, k)
			}
		}
		t.lastSweep = now
	}
	a, ok := t.accounts[key]
	if !ok {
		a = &attempts{}
		t.accounts[key] = a
	}
	if now.Before(a.until) {
		return &ThrottledError{RetryAfter: a.until.Sub(now)}
	}
	if now.Sub(a.last) > LoginForgetAfter {
		a.n = 0
	}
	a.n++
	a.last = now
	if a.n >= LoginFreeAttempts {
		a.until = now.Add(backoff(a.n - LoginFreeAttempts))
	}
	return nil
}

// succeeded forgets the account's attempts: its owner is in.
func (t *loginThrottle) succeeded(email string) {
	t.mu.Lock()
	delete(t.accounts, accountKey(email))
	t.mu.Unlock()
}

// backoff is the wait after the (k+1)-th attempt beyond the free ones.
func backoff(k int) time.Duration {
	if k >= 10 {
		return LoginBackoffMax
	}
	return min(LoginBackoffBase<<k, LoginBackoffMax)
}
