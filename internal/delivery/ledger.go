package delivery

import (
	"context"
	"time"
)

// Key names one handler's work on one event in the processed-event ledger.
type Key struct {
	EventID string
	Handler string
}

// State is what a ledger claim found.
type State int

// The states of a ledger claim.
const (
	// Acquired: this delivery owns the claim; Token is its owner token.
	Acquired State = iota + 1
	// Done: the handler already succeeded for this event; skip it.
	Done
	// Held: a fresh claim belongs to another delivery until HeldUntil.
	Held
)

// Claim is the ledger's answer for one Key.
type Claim struct {
	Key
	State     State
	Token     int64 // started_at in Unix milliseconds; conditions the later mark
	HeldUntil time.Time
	// TookOver: Acquired by taking over a claim whose lease had expired (its holder died or hung).
	TookOver bool
}

// Mark settles an acquired claim: done on success, released on failure. It only applies while
// the ledger still holds Token, so a stale delivery cannot clobber a newer claim.
type Mark struct {
	Key
	Token int64
	Done  bool
}

// Ledger is the processed-event ledger. Claim inserts an in-progress claim per key, or takes over
// one older than the lease; it answers for every key, in order. Renew moves each claim it still
// holds with the mark's token to now (now in Unix ms is the new token) and reports, in order,
// which it still held: a claim taken over meanwhile is not renewed.
type Ledger interface {
	Claim(ctx context.Context, now time.Time, lease time.Duration, keys []Key) ([]Claim, error)
	Renew(ctx context.Context, now time.Time, claims []Mark) ([]bool, error)
}
