package delivery

import "time"

// Message is one event as a Source delivers it.
type Message struct {
	EventID string
	// RowID is the outbox row the message came from, when the source knows it (0 otherwise): a
	// foreign writer's row has no event id, and its row id is what tells two such rows apart.
	RowID   int64
	Type    string
	Payload []byte
	// Attempt is this delivery's number, 1 for the first, counting the deliveries of earlier
	// copies of the event (Prior).
	Attempt int
	// Prior is how many of Attempt were spent by earlier copies of the event, before the broker
	// message that carries this delivery was published (a broker-fed source; 0 otherwise):
	// Attempt − Prior is this copy's own delivery count.
	Prior int
	// Handoffs is how many times the message was handed to a broker before (an outbox row's
	// relay rounds); the relay names each round's broker message after it.
	Handoffs int
	// Ref is the source's own handle on the message (a row and claim token, a JetStream message).
	Ref any
}

// Disposition is what the source should do with a message after delivery (named apart from
// domain.Kind, an error's kind).
type Disposition int

// The outcomes of a delivery.
const (
	// Ack: every handler is done or skipped.
	Ack Disposition = iota + 1
	// Defer: a handler's ledger claim is held by a live delivery elsewhere; redeliver at Until
	// without spending an attempt.
	Defer
	// Retry: a handler failed transiently (or the ledger could not be read); spend an attempt and
	// redeliver after Delay, or dead-letter when attempts run out.
	Retry
	// DeadLetter: a permanent failure; stop delivering at once and keep Err.
	DeadLetter
	// Return: the delivery was abandoned by a shutdown before it finished; hand the message back
	// without spending an attempt.
	Return
	// Handoff: a relay handed the message to a broker, whose consumer records the final outcome
	// in the source; if none is recorded by Until (the broker lost it), deliver it again.
	Handoff
)

func (k Disposition) String() string {
	switch k {
	case Ack:
		return "ack"
	case Defer:
		return "defer"
	case Retry:
		return "retry"
	case DeadLetter:
		return "dead_letter"
	case Return:
		return "return"
	case Handoff:
		return "handoff"
	}
	return "unknown"
}

// Result is a finished delivery: the ledger marks to write and what to do with the message.
type Result struct {
	Msg   Message
	Kind  Disposition
	Delay time.Duration // Retry: backoff before the next delivery
	Until time.Time     // Defer: when the blocking ledger claim expires; Handoff: when to relay again
	Err   error         // Retry, DeadLetter: the real error, kept for operators
	Marks []Mark
}

// RowOutcome is what a broker-fed consumer records in an event's outbox row, in the same
// transaction as the ledger marks of its settle: the outbox stays the source of truth for what
// happened to every event, whichever backend delivered it.
type RowOutcome struct {
	EventID string
	// Kind: Ack (handled: the row is done), DeadLetter (given up: dead-lettered with Err),
	// Return (handed back: the relay publishes it again at At without spending an attempt, as
	// after a shutdown or a JetStream message that ran out of deliveries while deferred), or
	// Retry (still being delivered by the broker: the row's re-relay moves to At, and Err is
	// kept for operators).
	Kind Disposition
	// Round is the relay round of the copy delivered (Message.Handoffs when it was published):
	// the row's next publish must be a later round, whose broker message id the duplicate
	// window has not seen, even when this outcome is recorded before the relay recorded the
	// handoff (a quick consumer).
	Round int
	// Deliveries is how many deliveries of this copy the broker made, this one included.
	Deliveries int
	Err        error
	At         time.Time
}
