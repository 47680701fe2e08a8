package delivery

import "time"

// Message is one event as a Source delivers it.
type Message struct {
	EventID string
	Type    string
	Payload []byte
	// Attempt is this delivery's number, 1 for the first.
	Attempt int
	// Ref is the source's own handle on the message (a row and claim token, a JetStream message).
	Ref any
}

// Kind is what the source should do with a message after delivery.
type Kind int

// The outcomes of a delivery.
const (
	// Ack: every handler is done or skipped.
	Ack Kind = iota + 1
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
)

func (k Kind) String() string {
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
	}
	return "unknown"
}

// Result is a finished delivery: the ledger marks to write and what to do with the message.
type Result struct {
	Msg   Message
	Kind  Kind
	Delay time.Duration // Retry: backoff before the next delivery
	Until time.Time     // Defer: when the blocking ledger claim expires
	Err   error         // Retry, DeadLetter: the real error, kept for operators
	Marks []Mark
}
