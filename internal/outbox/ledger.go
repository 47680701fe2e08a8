package outbox

import (
	"time"

	"moviesdiary/internal/delivery"
)

// The processed_events half of the Lifecycle: one entry per (event, handler), claimed
// in_progress before the handler runs, marked done after it or released (deleted) when it
// fails. started_at (Unix ms) is the claim's owner token; every mark and renewal is guarded by
// it, so a stale delivery cannot clobber a newer claim.

// Entry is a processed_events row as the ledger's transitions see it; a zero Status is no row.
type Entry struct {
	Status    string // "", "in_progress" or "done"
	StartedAt int64
	Takeovers int
}

// The statuses of a ledger entry.
const (
	InProgress = "in_progress"
	Handled    = "done"
)

// ClaimEntry is what a ledger claim at now (Unix ms, the new token) does to e under lease: no
// row is inserted in_progress, an in_progress claim older than the lease is taken over (counted
// in Takeovers), and anything else is answered as it stands: done, or held until its lease ends.
func ClaimEntry(e Entry, now int64, lease time.Duration) (Entry, delivery.Claim) {
	switch {
	case e.Status == "":
		return Entry{Status: InProgress, StartedAt: now}, delivery.Claim{State: delivery.Acquired, Token: now}
	case e.Status == InProgress && e.StartedAt <= now-lease.Milliseconds():
		e.StartedAt, e.Takeovers = now, e.Takeovers+1
		return e, delivery.Claim{State: delivery.Acquired, Token: now, TookOver: true}
	default:
		return e, Stands(e, lease)
	}
}

// Stands is the answer for an entry a claim did not take: done, or held until its lease ends.
// A store whose claim lost a race for an expired entry (another delivery took it over after the
// read's snapshot) answers held too, the lease's end being then already past: the event is
// deferred, not failed.
func Stands(e Entry, lease time.Duration) delivery.Claim {
	if e.Status == Handled {
		return delivery.Claim{State: delivery.Done}
	}
	return delivery.Claim{State: delivery.Held, HeldUntil: time.UnixMilli(e.StartedAt + lease.Milliseconds())}
}

// MarkEntry is a mark on e at now: done or released (no row), only while e is in_progress with
// the mark's token.
func MarkEntry(e Entry, m delivery.Mark, now int64) (Entry, bool) {
	if e.Status != InProgress || e.StartedAt != m.Token {
		return e, false
	}
	if !m.Done {
		return Entry{}, true
	}
	e.Status = Handled
	return e, true
}

// RenewEntry moves e's claim to now while it is in_progress with token: the renewed claim's marks
// carry now as their token (docs/adr/0004).
func RenewEntry(e Entry, token, now int64) (Entry, bool) {
	if e.Status != InProgress || e.StartedAt != token {
		return e, false
	}
	e.StartedAt = now
	return e, true
}

// Claims answers a ledger claim of keys at token from what it found per distinct key (found):
// a key asked twice in one call (two copies of a message in one fetch) is acquired once, and
// each later copy sees the claim as held until the lease ends (or done), as any other delivery
// would. An error from found ends the answer.
func Claims(keys []delivery.Key, token int64, lease time.Duration, found func(delivery.Key) (delivery.Claim, error)) ([]delivery.Claim, error) {
	claims := make([]delivery.Claim, len(keys))
	first := make(map[delivery.Key]int, len(keys)) // key → index of its first occurrence
	for i, k := range keys {
		if j, dup := first[k]; dup {
			claims[i] = claims[j]
			if claims[j].State == delivery.Acquired {
				claims[i] = delivery.Claim{Key: k, State: delivery.Held, HeldUntil: time.UnixMilli(token + lease.Milliseconds())}
			}
			continue
		}
		first[k] = i
		c, err := found(k)
		if err != nil {
			return nil, err
		}
		c.Key = k
		claims[i] = c
	}
	return claims, nil
}
