// Package deliverytest is the conformance suite every event source runs (the SQLite queue, the
// JetStream consumer, core NATS), in the style of Watermill's Pub/Sub tests: a source says what it
// can do in Features, gives the suite a Harness, and the suite runs the real Engine and Pump with
// the real ledger over it, asserting the outbox decision record's delivery rules. A case a source
// cannot support is skipped with the name of the missing feature.
package deliverytest

import (
	"context"
	"testing"
	"time"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
)

// Features says what a source can do; the suite skips what it cannot, naming the feature.
type Features struct {
	// MaxAttempts is the delivery limit the source was built with (EVENT_QUEUE_MAX_ATTEMPTS).
	// With Clock it should be at least 8, so the retry schedule reaches its 300 s cap twice.
	MaxAttempts int
	// Clock: Harness.Advance moves the time the source and the ledger see, so the suite walks
	// the whole retry schedule and lets leases expire without waiting. Without it the suite
	// checks the first retry only and waits real time for short ledger leases.
	Clock bool
	// DeadLetterStore: a dead-lettered event stays dead-lettered, with its error, and no claimer
	// gets it again: the SQLite queue's row; JetStream's terminated message and core NATS's
	// dropped one, whose outbox rows the consumers dead-letter (Rows checks those).
	DeadLetterStore bool
	// CountsEveryDelivery: every delivery counts toward MaxAttempts, a defer included
	// (JetStream's max_deliver), so the suite does not expect a defer to spend nothing. A
	// shutdown's return spends nothing on every source.
	CountsEveryDelivery bool
	// Repeats: the harness can put several copies of one event id in reach of one claim. The
	// SQLite queue cannot: event_id is unique there.
	Repeats bool
	// ClaimLease is the source's claim lease, after which a claim goes stale and a second Source
	// claims the message again: the SQL queues' claimed_at lease, JetStream's ack wait, core
	// NATS's re-relay horizon. With Clock the suite moves past it; without, it passes on the
	// source's own clock, so it must be short (a test-only setting) and the harness a Stopper,
	// which stalls the first claimer.
	ClaimLease time.Duration
	// WallClockBackoff is, for a source without Clock (a broker that redelivers on its own wall
	// clock), the retry schedule's base the max-attempts case runs its engine with, so the whole
	// schedule up to the dead letter passes in real time. A source without Clock must set it.
	WallClockBackoff time.Duration
}

// Ledger is the processed-event ledger the harness's source settles into (*sqlstore.Ledger).
type Ledger interface {
	delivery.Ledger
	Settle(ctx context.Context, now time.Time, marks []delivery.Mark) error
}

// Harness is one test's source and the store behind it; each call of the suite's newHarness
// builds a fresh one (its own database, its own broker).
type Harness interface {
	// Source returns a new claimer of the harness's events; a second call gives a second
	// claimer on the same store (a second worker). The harness ends the source's own background
	// work when the test ends, after the pumps the suite started on it.
	Source(t *testing.T) delivery.Source
	// Ledger is the ledger the sources settle into.
	Ledger() Ledger
	// Publish makes the events available to the sources, each under a fresh event id, and
	// returns the ids in order.
	Publish(t *testing.T, events ...domain.Event) []string
	// PublishCopies makes copies copies of e, under one event id, available at once, so that
	// one claim can get them together (Features.Repeats).
	PublishCopies(t *testing.T, e domain.Event, copies int) string
	// Now is the time the source and the ledger see.
	Now() time.Time
	// Advance moves Now forward (Features.Clock).
	Advance(d time.Duration)
	// Outcome is what the source has applied to the event so far.
	Outcome(t *testing.T, id string) Outcome
}

// Stopper is a Harness whose sources work in the background on their own (JetStream's
// in-progress notices, core NATS's queue-group subscription). Stop ends that work for src, as
// when its worker stops or stalls: src renews no claim and receives nothing more, but its
// Settle still runs (a stalled worker's late settle).
type Stopper interface {
	Stop(t *testing.T, src delivery.Source)
}

// State is where an event stands in its source.
type State int

// The states an Outcome reports.
const (
	// Unknown: the source has applied nothing the harness can see since the last delivery.
	Unknown State = iota
	// Waiting: waiting for its next delivery, Delay after it was settled (0: at once).
	Waiting
	// Claimed: delivered and not settled.
	Claimed
	// Done: acked.
	Done
	// DeadLettered: given up for good (dead-lettered, terminated, or dropped with the error kept
	// where the source keeps it).
	DeadLettered
)

func (s State) String() string {
	switch s {
	case Waiting:
		return "waiting"
	case Claimed:
		return "claimed"
	case Done:
		return "done"
	case DeadLettered:
		return "dead-lettered"
	}
	return "unknown"
}

// Outcome is what a source has applied to one event.
type Outcome struct {
	State State
	// Attempts is how many deliveries the source has counted toward MaxAttempts.
	Attempts int
	// Delay (Waiting) is how long after its settle the source delivers the event again: the
	// SQLite row's next_attempt_at − now, the JetStream nak's delay, the in-process timer.
	Delay time.Duration
	// Err (DeadLettered) is the error the source kept: last_error, the terminate reason, the
	// error log line.
	Err string
}

// Row is an event's outbox row as an operator sees it (`worker events show`).
type Row struct {
	Status    string // pending, processing, relayed, done, dead_lettered
	Attempts  int
	LastError string
}

// Rows is a Harness whose events live in an outbox: every backend records an event's final
// outcome in its row, so the suite checks the row agrees with what the source applied — done
// when acked, dead-lettered with the error and the attempts when given up — and that an
// operator sees every failed event in `worker events list`.
type Rows interface {
	Row(t *testing.T, id string) Row
}
