package outbox

import (
	"fmt"
	"time"

	"moviesdiary/internal/delivery"
)

// The broker-fed consumers' half of the Lifecycle (NATS JetStream and core): what a settled
// delivery of a relayed copy means for its row, which Record then writes.

// Exhaust turns a transient failure on the consumer's last delivery (last: the broker, or core
// mode's in-process retries, will not deliver the copy again) into a dead letter whose error
// says why (reason, such as "max deliveries (5) reached"), and reports whether it did: the
// consumer counts that dead letter itself, the engine counted a failure.
func Exhaust(res delivery.Result, last bool, reason string) (delivery.Result, bool) {
	if res.Kind != delivery.Retry || !last {
		return res, false
	}
	res.Kind, res.Err = delivery.DeadLetter, fmt.Errorf("%s: %w", reason, res.Err)
	return res, true
}

// Outcome is what a broker-fed consumer records in the row of the copy res settled at now. last:
// the broker will not deliver this copy again after a nak. horizon is the relay's re-relay
// horizon.
//
//   - Ack, DeadLetter: recorded as they are.
//   - Defer or Return on the last delivery: no failure: the row is handed back (Return) for the
//     relay to publish a fresh copy, at the held claim's end or at once, without an attempt.
//     JetStream's consumer makes every shutdown's return a last delivery (and terminates the
//     message), since JetStream counts a redelivery as a delivery
//     (docs/adr/0010-a-shutdown-hands-the-copy-back.md).
//   - Otherwise (a nak, a defer, a return the broker redelivers at once): the broker still has
//     the copy, so the row's horizon moves past its redelivery (Retry), and a long defer does
//     not cause a second copy.
func Outcome(res delivery.Result, now time.Time, horizon time.Duration, last bool) delivery.RowOutcome {
	o := delivery.RowOutcome{EventID: res.Msg.EventID, Round: res.Msg.Handoffs, Deliveries: res.Msg.Attempt - res.Msg.Prior, Err: res.Err}
	switch {
	case res.Kind == delivery.Ack || res.Kind == delivery.DeadLetter:
		o.Kind = res.Kind
	case res.Kind == delivery.Defer && last:
		o.Kind, o.At = delivery.Return, res.Until
	case res.Kind == delivery.Return && last:
		o.Kind, o.At = delivery.Return, now
	case res.Kind == delivery.Defer:
		o.Kind, o.At = delivery.Retry, res.Until.Add(horizon)
	default: // a retry, or a return the broker redelivers at once
		o.Kind, o.At = delivery.Retry, now.Add(res.Delay).Add(horizon)
	}
	return o
}
