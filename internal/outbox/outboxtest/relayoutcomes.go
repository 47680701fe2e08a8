package outboxtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// runRelayOutcomes runs the cases of a row relayed to a broker whose consumers record outcomes
// (docs/adr/0002-outbox-outcomes.md): the relay round is a broker copy's claim token, and a
// consumer may record before the relay records its handoff.
func runRelayOutcomes(t *testing.T, open func(t *testing.T, clock *Clock) Outbox) {
	cases := []struct {
		name string
		run  func(t *testing.T, r *relayCase)
	}{
		{"AQuickConsumerStillMovesTheRound", testQuickConsumer},
		{"AQuickReturnHandsTheRowBack", testQuickReturn},
		{"AStaleRoundCannotSettle", testStaleRound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			clock := NewClock(time.Now().Truncate(time.Millisecond))
			r := &relayCase{Outbox: open(t, clock), clock: clock}
			r.q = r.Queue(outbox.QueueConfig{MaxAttempts: 5, Logger: deliverytest.Logger(t)})
			t.Cleanup(func() { r.q.Close() })
			c.run(t, r)
		})
	}
}

// relayCase is one case's store, its clock and the relay's queue.
type relayCase struct {
	Outbox
	clock *Clock
	q     Queue
}

func (r *relayCase) enqueue(t *testing.T) string {
	t.Helper()
	id := uuid.New()
	if err := r.Enqueue(context.Background(), outbox.EventWithID{ID: id, Event: domain.SearchReindexRequested{}}); err != nil {
		t.Fatal(err)
	}
	return id.String()
}

func (r *relayCase) row(t *testing.T, id string) outbox.EventRow {
	t.Helper()
	row, _, err := r.ShowEvent(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return row
}

// claim is the relay claiming the one row, as round round.
func (r *relayCase) claim(t *testing.T, round int) delivery.Message {
	t.Helper()
	msgs, err := r.q.Claim(context.Background(), 10)
	if err != nil || len(msgs) != 1 || msgs[0].Handoffs != round {
		t.Fatalf("relay claim: %+v %v; want the row as relay round %d", msgs, err, round)
	}
	return msgs[0]
}

// handoff is the relay recording that the broker has the copy, until the re-relay horizon.
func (r *relayCase) handoff(t *testing.T, m delivery.Message, horizon time.Duration) {
	t.Helper()
	if err := r.q.Settle(context.Background(), []delivery.Result{{Msg: m, Kind: delivery.Handoff, Until: r.clock.Now().Add(horizon)}}); err != nil {
		t.Fatal(err)
	}
}

// record records o and fails t unless Record reports it superseded exactly when want says.
func (r *relayCase) record(t *testing.T, o delivery.RowOutcome, superseded bool) {
	t.Helper()
	got, err := r.SettleOutcomes(context.Background(), r.clock.Now(), nil, []delivery.RowOutcome{o})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != superseded {
		t.Fatalf("%s of round %d: superseded %v, want %v", o.Kind, o.Round, got, superseded)
	}
}

// testQuickConsumer: a consumer can record an event's outcome before the relay records its
// handoff (the PubAck and the consumer race). The handoff then changes nothing, and the row's
// next publish (an operator's retry of the dead letter) must still be a later relay round, or
// JetStream's duplicate window would swallow it.
func testQuickConsumer(t *testing.T, r *relayCase) {
	id := r.enqueue(t)
	m := r.claim(t, 0)
	r.record(t, delivery.RowOutcome{EventID: id, Kind: delivery.DeadLetter, Round: 0, Deliveries: 1, Err: errors.New("remote answered 410 Gone")}, false)
	r.handoff(t, m, time.Hour)
	if row := r.row(t, id); row.Status != "dead_lettered" || row.Attempts != 1 {
		t.Fatalf("row %+v; want the consumer's dead letter kept", row)
	}
	if n, err := r.Retry(context.Background(), []string{id}, ""); err != nil || n != 1 {
		t.Fatalf("retry: %d %v", n, err)
	}
	r.claim(t, 1)
}

// testQuickReturn: a consumer that hands an event back (a shutdown) before the relay records
// its handoff still gets the row back to pending, so the relay publishes it again at once
// without spending an attempt, instead of after the re-relay horizon.
func testQuickReturn(t *testing.T, r *relayCase) {
	id := r.enqueue(t)
	m := r.claim(t, 0)
	r.record(t, delivery.RowOutcome{EventID: id, Kind: delivery.Return, Round: 0, Deliveries: 1, At: r.clock.Now()}, false)
	r.handoff(t, m, time.Hour)
	if row := r.row(t, id); row.Status != "pending" || row.Attempts != 0 || row.ClaimedAt != nil {
		t.Fatalf("row %+v; want it handed back: pending, unclaimed, no attempt spent", row)
	}
	if m := r.claim(t, 1); m.Attempt != 1 {
		t.Fatalf("claim after the hand-back: attempt %d, want 1", m.Attempt)
	}
}

// testStaleRound: once the relay has published a later round of an event (the earlier copy's
// consumer stalled past the re-relay horizon), the earlier copy's late dead letter, hand-back or
// retry changes nothing: the round is its claim token. Its ack still counts: every handler is
// done.
func testStaleRound(t *testing.T, r *relayCase) {
	id := r.enqueue(t)
	r.handoff(t, r.claim(t, 0), time.Minute)
	r.clock.Advance(time.Minute) // round 0's horizon passes
	r.handoff(t, r.claim(t, 1), time.Minute)
	want := r.row(t, id)
	if want.Status != "relayed" || want.Attempts != 1 {
		t.Fatalf("row after the re-relay %+v; want relayed with the lost round counted", want)
	}
	for _, k := range []delivery.Disposition{delivery.DeadLetter, delivery.Return, delivery.Retry} {
		// Reported superseded, so the consumer neither counts a dead letter nor retries the copy.
		r.record(t, delivery.RowOutcome{EventID: id, Kind: k, Round: 0, Deliveries: 1, Err: errors.New("stale copy"), At: r.clock.Now().Add(time.Hour)}, true)
		if got := r.row(t, id); got.Status != want.Status || got.Attempts != want.Attempts || got.LastError != want.LastError ||
			!got.NextAttemptAt.Equal(want.NextAttemptAt) || (got.ClaimedAt == nil) != (want.ClaimedAt == nil) {
			t.Fatalf("round 0's late %s changed the row: %+v, was %+v", k, got, want)
		}
	}
	r.record(t, delivery.RowOutcome{EventID: id, Kind: delivery.Ack, Round: 0, Deliveries: 1}, false)
	if got := r.row(t, id); got.Status != "done" {
		t.Fatalf("round 0's ack left %+v; want done", got)
	}
	// The current round's late retry finds the event done: superseded too.
	r.record(t, delivery.RowOutcome{EventID: id, Kind: delivery.Retry, Round: 1, Deliveries: 1, At: r.clock.Now().Add(time.Hour)}, true)
}
