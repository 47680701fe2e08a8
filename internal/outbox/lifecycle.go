package outbox

import (
	"cmp"
	"fmt"
	"time"

	"moviesdiary/internal/delivery"
)

// Status is an event_queue row's status.
type Status string

// The statuses of an outbox row (docs/adr/0002-outbox-outcomes.md adds Relayed).
const (
	Pending      Status = "pending"
	Processing   Status = "processing"
	Relayed      Status = "relayed"
	Done         Status = "done"
	DeadLettered Status = "dead_lettered"
)

// Statuses lists every status, for tests that walk them all.
var Statuses = []Status{Pending, Processing, Relayed, Done, DeadLettered}

// Row is the part of an event_queue row its life reads and writes: what the Lifecycle's
// transitions are stated on, and what its model test and the stores' conformance case compare.
type Row struct {
	Status        Status
	Attempts      int    // deliveries that failed or came to nothing
	Relays        int    // relay rounds handed to a broker: the next round's number
	ClaimedAt     int64  // the claim's owner token (Unix ms); 0 when unclaimed (NULL)
	NextAttemptAt int64  // Unix ms: when a pending row is due, or a relayed row's re-relay horizon
	LastError     string // "" when NULL
}

// Lifecycle is the outbox row's state machine, in one place: pending → processing → done, back
// to pending (a retry with backoff, a defer, a hand-back), dead_lettered, and relayed (round n)
// → processing (round n+1) for the NATS relay. It decides every transition as a conditioned
// Update whose guard carries the owner token (a claim's claimed_at), the last attempt
// (MaxAttempts) or the superseded relay round; the SQL stores only execute what it decides.
// The ledger's claims (processed_events) are its other half (ledger.go).
//
// Four clocks drive it: the claim lease (ClaimLease: a processing row whose claim is older is
// reclaimed), the ledger lease (a handler's claim; the engine's), JetStream's ack wait, and the
// re-relay horizon (a relayed row's NextAttemptAt, which the relay derives from the last two).
type Lifecycle struct {
	MaxAttempts int           // deliveries before a row is dead-lettered (default 5)
	ClaimLease  time.Duration // default ClaimLeaseDefault
	// ErrorText is an error as last_error keeps it (each engine bounds and cleans it its way).
	ErrorText func(error) string
}

// NewLifecycle is the Lifecycle of a queue configured by cfg, its zero fields defaulted.
func NewLifecycle(cfg QueueConfig, errorText func(error) string) Lifecycle {
	return Lifecycle{
		MaxAttempts: cmp.Or(cfg.MaxAttempts, 5),
		ClaimLease:  cmp.Or(cfg.ClaimLease, ClaimLeaseDefault),
		ErrorText:   errorText,
	}
}

// ClaimStep is what a claim does to a row.
type ClaimStep int

// The steps of a claim.
const (
	NotDue    ClaimStep = iota // not claimable now
	Fresh                      // a due pending row: no attempt spent
	Reclaimed                  // a processing row whose claim outlived the lease: its abandoned delivery counts
	Rerelayed                  // a relayed row past its horizon (the broker lost it): counts as an attempt
	Abandoned                  // either of the last two on the last attempt: dead-lettered instead of claimed
)

// AbandonedError is last_error of a row reclaimed after its claim lease.
func (l Lifecycle) AbandonedError() string {
	return fmt.Sprintf("delivery abandoned: its worker died or stalled past the claim lease (%s)", l.ClaimLease)
}

// LostError is last_error of a relayed row claimed again after its horizon.
const LostError = "no outcome recorded within the re-relay horizon (the broker lost it, or its consumers died): relayed again"

// Claim is what a claim at now (Unix ms) does to r: the stores' claim statements select the
// rows for which it is not NotDue, dead-letter the Abandoned ones first (with an error naming
// the lease or the horizon), and claim the rest with now as their owner token.
func (l Lifecycle) Claim(r Row, now int64) (Row, ClaimStep) {
	stale := now - l.ClaimLease.Milliseconds()
	var step ClaimStep
	switch {
	case r.Status == Pending && r.NextAttemptAt <= now:
		step = Fresh
	case r.Status == Processing && r.ClaimedAt <= stale:
		step = Reclaimed
	case r.Status == Relayed && r.NextAttemptAt <= now:
		step = Rerelayed
	default:
		return r, NotDue
	}
	if step != Fresh {
		r.Attempts++
		if r.Attempts >= l.MaxAttempts {
			r.Status, r.ClaimedAt = DeadLettered, 0
			if step == Reclaimed {
				r.LastError = fmt.Sprintf("dead-lettered after %d attempts: the worker of the last one died or stalled past the claim lease (%s), as a handler that crashes the process would make it do every time", r.Attempts, l.ClaimLease)
			} else {
				r.LastError = fmt.Sprintf("dead-lettered after %d attempts: no outcome was recorded within the re-relay horizon of the last one (the broker lost it, or its consumers died)", r.Attempts)
			}
			return r, Abandoned
		}
		r.LastError = LostError
		if step == Reclaimed {
			r.LastError = l.AbandonedError()
		}
	}
	r.Status, r.ClaimedAt = Processing, now
	return r, step
}

// Settle decides what a settled delivery does to the row claimed with token, at now (Unix ms).
//
//   - Ack: done, whoever holds the claim now: every handler is done (another claimer finds the
//     ledger done). A row already done, relayed or dead-lettered is left alone. The stores
//     settle an ack whose done marks did not all land in the ledger (a claim taken over while
//     its handler ran) as a Defer to now instead (docs/adr/0009-an-ack-completes-only-what-the-ledger-has-done.md).
//   - Handoff: relayed until Until, relays+1, while the claim is still token's; a consumer that
//     recorded its outcome first moved the row on, and the handoff changes nothing.
//   - Return, Defer: back to pending (at once, or at Until) without spending an attempt.
//   - Retry, DeadLetter: an attempt spent and the error kept; dead-lettered on a DeadLetter or
//     when the delivery was the last attempt (Msg.Attempt ≥ MaxAttempts), pending after
//     Delay otherwise. A Retry the queue turns into a dead letter is counted by the queue
//     (Update.CountDead): the engine counted only the failure.
//
// All but Ack are guarded by the owner token: a row claimed again meanwhile is its new owner's.
func (l Lifecycle) Settle(res delivery.Result, token, now int64) (Update, error) {
	owned := Guard{In: []Status{Processing}, Token: token}
	u := Update{Guard: owned}
	switch res.Kind {
	case delivery.Ack:
		u.Step = StepDone
		u.Guard = Guard{In: []Status{Pending, Processing}}
		u.Set = Set{Status: Done, ClearClaim: true, ClearError: true}
	case delivery.Handoff:
		u.Step = StepHandoff
		u.Set = Set{Status: Relayed, ClearClaim: true, AddRelays: 1, NextAttemptAt: res.Until.UnixMilli()}
	case delivery.Return:
		u.Step = StepReturn
		u.Set = Set{Status: Pending, ClearClaim: true}
	case delivery.Defer:
		u.Step = StepDefer
		u.Set = Set{Status: Pending, ClearClaim: true, NextAttemptAt: res.Until.UnixMilli()}
	case delivery.Retry, delivery.DeadLetter:
		last := res.Kind == delivery.DeadLetter || res.Msg.Attempt >= l.MaxAttempts
		text := l.errorText(res.Err)
		u.Step, u.Set = StepRetry, Set{Status: Pending, ClearClaim: true, AddAttempts: 1,
			NextAttemptAt: now + res.Delay.Milliseconds(), LastError: &text}
		if last {
			u.Step, u.Set.Status = StepDeadLetter, DeadLettered
			u.CountDead = res.Kind == delivery.Retry
		}
	default:
		return Update{}, fmt.Errorf("unknown outcome %v", res.Kind)
	}
	return u, nil
}

// Record decides what a broker-fed consumer's outcome does to its event's row, found by event
// id (docs/adr/0002-outbox-outcomes.md). ok is false for an outcome with no event id (a foreign
// writer's row, done at its handoff): nothing to record.
//
//   - Ack: done unless done already; attempts grow by this copy's failed deliveries.
//   - DeadLetter: dead-lettered with the error and the delivery count.
//   - Return: back to pending at At, for the relay to publish again without spending an attempt:
//     attempts grow by the copy's deliveries before the returned one, so the next copy (which
//     carries them) numbers its first delivery as the returned one was.
//   - Retry: still being delivered by the broker: the horizon moves to At (never earlier), and
//     last_error keeps the failure (a defer, without one, keeps the last).
//
// Each moves relays past the copy's round, so the next publish gets a fresh message id even when
// the consumer records before the relay its handoff. All but Ack are guarded by the round: once
// a later round owns the row (relays > Round+1), or it is done, a copy's outcome changes nothing
// and is superseded (Update.Superseded).
func (l Lifecycle) Record(o delivery.RowOutcome) (u Update, ok bool, err error) {
	if o.EventID == "" {
		return Update{}, false, nil
	}
	round := o.Round + 1
	switch o.Kind {
	case delivery.Ack:
		u = Update{Step: StepDone, Guard: Guard{In: []Status{Done}, NotIn: true},
			Set: Set{Status: Done, ClearClaim: true, ClearError: true, AddAttempts: max(o.Deliveries-1, 0), RelaysAtLeast: round}}
	case delivery.DeadLetter:
		text := l.errorText(o.Err)
		u = Update{Step: StepDeadLetter, Guard: Guard{In: []Status{Done}, NotIn: true, Round: round},
			Set: Set{Status: DeadLettered, ClearClaim: true, AddAttempts: max(o.Deliveries, 1), LastError: &text, RelaysAtLeast: round}}
	case delivery.Return:
		u = Update{Step: StepReturn, Guard: Guard{In: []Status{Relayed, Processing}, Round: round},
			Set: Set{Status: Pending, ClearClaim: true, NextAttemptAt: o.At.UnixMilli(), RelaysAtLeast: round,
				AddAttempts: max(o.Deliveries-1, 0)}}
	case delivery.Retry:
		u = Update{Step: StepRetry, Guard: Guard{In: []Status{Relayed}, Round: round},
			Set: Set{NextAttemptAt: o.At.UnixMilli(), NextNoEarlier: true, RelaysAtLeast: round}}
		if o.Err != nil {
			text := l.errorText(o.Err)
			u.Set.LastError = &text
		}
	default:
		return Update{}, false, fmt.Errorf("unknown outcome %v", o.Kind)
	}
	return u, true, nil
}

// Extend renews the claim held with token to now, while it is still token's: a live worker
// keeps its rows, and only a dead or stalled one loses them to a reclaim.
func (l Lifecycle) Extend(token, now int64) Update {
	return Update{Step: StepExtend, Guard: Guard{In: []Status{Processing}, Token: token}, Set: Set{ClaimAt: now}}
}

func (l Lifecycle) errorText(err error) string {
	if l.ErrorText == nil {
		if err == nil {
			return "unknown error"
		}
		return err.Error()
	}
	return l.ErrorText(err)
}
