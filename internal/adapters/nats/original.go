package nats

import (
	"context"
	"log/slog"

	"github.com/nats-io/nats.go/jetstream"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
)

// maxLoggedPayload bounds the payload a dead-lettered message of the original's is logged with.
const maxLoggedPayload = 4 << 10

// fromOriginal reports whether m was published by the original movies-diary, whose messages
// carry no headers at all (reference: its NATS adapter): every message our relay publishes
// names its event (EventIDHeader, Nats-Msg-Id) or its foreign writer's row (RowIDHeader).
func fromOriginal(m delivery.Message) bool { return m.EventID == "" && m.RowID == 0 }

// settleOriginals gives each message of the original's among msgs the fate of its event type
// (domain.LegacyEventFate), as adoption gives the original's open outbox rows theirs: a type our
// handlers take as its worker did is returned with the others, to be delivered; a settled one
// (its server answered the social event inline, or nothing consumes it) is acked without a
// handler; a type its last release did not write is terminated. Each settled or terminated
// message is logged, with its stream sequence; it has no outbox row to record its outcome in.
// A FollowAccepted of the original's carries no direction, so it is incoming (domain.
// FollowAccepted), and settled: the Accept went out inline.
func (c *Consumer) settleOriginals(ctx context.Context, msgs []delivery.Message) []delivery.Message {
	out := msgs[:0]
	for _, m := range msgs {
		jm, ok := m.Ref.(jetstream.Msg)
		if !ok || !fromOriginal(m) {
			out = append(out, m)
			continue
		}
		outgoing := false
		if e, err := domain.Decode(m.Type, m.Payload); err == nil {
			if fa, ok := e.(domain.FollowAccepted); ok {
				outgoing = fa.Outgoing()
			}
		}
		fate, why := domain.LegacyEventFate(m.Type, outgoing)
		if fate == domain.LegacyDeliver {
			out = append(out, m)
			continue
		}
		attrs := []any{"event_type", m.Type, "subject", jm.Subject(), "reason", why}
		if md, err := jm.Metadata(); err == nil {
			attrs = append(attrs, "stream_seq", md.Sequence.Stream)
		}
		c.release(jm)
		var err error
		if fate == domain.LegacySettle {
			c.log.WarnContext(ctx, "adopted stream message settled, not delivered", attrs...)
			err = jm.Ack()
		} else {
			payload := string(m.Payload[:min(len(m.Payload), maxLoggedPayload)])
			c.log.ErrorContext(ctx, "adopted stream message dead-lettered: not an event type of movies-diary's last release",
				append(attrs, "payload", payload)...)
			err = jm.TermWithReason(why)
		}
		if err != nil {
			c.log.WarnContext(ctx, "could not tell JetStream the outcome; it redelivers after ack_wait",
				slog.String("subject", jm.Subject()), slog.Any("error", err))
		}
	}
	return out
}
