package domain

import (
	"errors"
	"time"
)

// ErrUnavailable matches every UnavailableError.
var ErrUnavailable = errors.New("temporarily unavailable")

// UnavailableError is a request refused because something it needs is busy or down for a while
// (every password-hashing slot taken, the database unreachable): retrying later fixes it, unlike
// a failure of ours. The HTTP layer answers it 503 with Retry-After.
type UnavailableError struct {
	// What names what is unavailable, for the client and the log: "password checking", "database".
	What string
	// RetryAfter is when to try again.
	RetryAfter time.Duration
	Err        error
}

// Error names what is unavailable, without the underlying failure (it may carry connection
// details a client must not see; Unwrap has it for the log).
func (e *UnavailableError) Error() string {
	return "Service unavailable: the " + e.What + " is busy or down; try again later"
}

// Unwrap returns the underlying failure.
func (e *UnavailableError) Unwrap() error { return e.Err }

// Is matches ErrUnavailable.
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }

// RetryAfterSeconds is RetryAfter in whole seconds, rounded up, at least 1.
func (e *UnavailableError) RetryAfterSeconds() int {
	s := int((e.RetryAfter + time.Second - 1) / time.Second)
	return max(1, s)
}
