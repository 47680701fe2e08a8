package nats

import (
	"testing"
	"time"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
)

// TestHorizonCoversTheRedeliverySchedule: the default horizon is the whole JetStream schedule of
// one message — five deliveries on the shared backoff, each with an ack_wait — and grows with both.
func TestHorizonCoversTheRedeliverySchedule(t *testing.T) {
	t.Parallel()
	if got, want := Horizon(5, AckWaitDefault, domain.BackoffBase), 7*time.Minute+35*time.Second; got != want {
		t.Fatalf("default horizon %s, want %s (5+10+20+40+80 s of backoff, 5 × 60 s ack_wait)", got, want)
	}
	if Horizon(6, AckWaitDefault, domain.BackoffBase) <= Horizon(5, AckWaitDefault, domain.BackoffBase) ||
		Horizon(5, 2*AckWaitDefault, domain.BackoffBase) <= Horizon(5, AckWaitDefault, domain.BackoffBase) {
		t.Fatal("the horizon does not grow with max_deliver and ack_wait")
	}
}

// TestMsgIDNamesTheRelayRound: the first round keeps the event id (what older builds published);
// later rounds, a re-relay or an operator's retry, get ids the duplicate window has never seen.
func TestMsgIDNamesTheRelayRound(t *testing.T) {
	t.Parallel()
	m := delivery.Message{EventID: "01a2"}
	if got := msgID(m); got != "01a2" {
		t.Fatalf("round 0: %q", got)
	}
	m.Handoffs = 2
	if got := msgID(m); got != "01a2/2" {
		t.Fatalf("round 2: %q", got)
	}
}
