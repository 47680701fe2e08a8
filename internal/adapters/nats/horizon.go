package nats

import (
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
)

// EventIDHeader carries the outbox event id on every message the relay publishes. Nats-Msg-Id
// names one relay round of the event (see msgID); consumers key the ledger on this header, and
// fall back to Nats-Msg-Id for messages relayed before it existed.
const EventIDHeader = "Moviesdiary-Event-Id"

// AttemptsHeader carries the attempts the event spent before the relay published this copy (its
// outbox row's attempts), so a consumer counts a copy's deliveries after them and the delivery
// limit holds across copies (docs/adr/0010-a-shutdown-hands-the-copy-back.md). Absent means none.
const AttemptsHeader = "Moviesdiary-Attempts"

// RowIDHeader carries the outbox row id of a foreign writer's row, which has no event id: the
// consumer's handlers key such a row by it, so two rows with equal payloads stay two events,
// and delivery log lines name the row by it.
const RowIDHeader = "Moviesdiary-Row-Id"

// Horizon is how long the relay waits for a consumer to record an event's outcome in its outbox
// row before it publishes the event again: JetStream's whole redelivery schedule for one
// message — maxDeliver deliveries, each nak'd on the shared backoff (domain.ScaledBackoff) —
// plus an ack_wait per delivery, the wait after a worker that died holding it. A message the
// broker still has is therefore handled, dead-lettered or handed back before its horizon;
// only one it lost (or whose every consumer is gone) is relayed again. Consumers move the
// horizon forward each time they settle a delivery that is not final (a retry, a defer), so a
// long defer does not trigger a copy either. With the defaults (5 deliveries, 5 s base, 60 s
// ack_wait) it is 155 s + 300 s = 7m35s.
func Horizon(maxDeliver int, ackWait, backoffBase time.Duration) time.Duration {
	var h time.Duration
	for n := 1; n <= max(maxDeliver, 1); n++ {
		h += domain.ScaledBackoff(backoffBase, n) + ackWait
	}
	return h
}

// msgID is the Nats-Msg-Id of one relay round of m: the event id for the first round (so
// messages relayed by older builds deduplicate with it), "<event id>/<n>" for round n. A
// relay that publishes again before it recorded the handoff (it crashed, a PubAck timed out)
// repeats the round's id and JetStream drops the copy inside its duplicate window; a re-relay
// after the horizon and an operator's retry are later rounds, which the window must not
// swallow.
func msgID(m delivery.Message) string {
	if m.Handoffs == 0 {
		return m.EventID
	}
	return m.EventID + "/" + strconv.Itoa(m.Handoffs)
}

// round is the relay round a received message belongs to, from its Nats-Msg-Id (0 for the
// first round, and for messages of older builds).
func round(h interface{ Get(string) string }) int {
	id := h.Get(jetstream.MsgIDHeader)
	i := strings.LastIndexByte(id, '/')
	if i < 0 {
		return 0
	}
	n, err := strconv.Atoi(id[i+1:])
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// eventID is the outbox event id a received message carries.
func eventID(h interface{ Get(string) string }) string {
	if id := h.Get(EventIDHeader); id != "" {
		return id
	}
	return h.Get(jetstream.MsgIDHeader)
}

// rowID is the outbox row id a received message carries (0 when it has none).
func rowID(h interface{ Get(string) string }) int64 {
	n, err := strconv.ParseInt(h.Get(RowIDHeader), 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// rowFields are the fields naming a message's row in a log line: its event id, and for a
// foreign writer's row its row id, as the delivery engine's lines do.
func rowFields(m delivery.Message) []any {
	if m.EventID == "" && m.RowID != 0 {
		return []any{"event_id", m.EventID, "row_id", m.RowID}
	}
	return []any{"event_id", m.EventID}
}

// priorAttempts is the attempts an event spent before this copy was published (AttemptsHeader),
// 0 when absent or malformed.
func priorAttempts(h interface{ Get(string) string }) int {
	n, err := strconv.Atoi(h.Get(AttemptsHeader))
	if err != nil || n < 0 {
		return 0
	}
	return n
}
