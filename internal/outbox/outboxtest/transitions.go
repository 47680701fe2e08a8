package outboxtest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// runTransitions checks that the store executes what outbox.Lifecycle decides: for every
// combination of the row's status, the outcome, the freshness of the claim token (or the copy's
// relay round) and the last attempt, the row the store leaves is the row the Lifecycle's model
// predicts, through the store's own statements (its multi-row acks and handoffs included).
func runTransitions(t *testing.T, open func(t *testing.T, clock *Clock) Outbox) {
	clock := NewClock(time.Now().Truncate(time.Millisecond))
	s := open(t, clock)
	if s.DB == nil {
		t.Fatal("the harness gives no raw connection (Outbox.DB)")
	}
	const max = 4
	q := s.Queue(outbox.QueueConfig{MaxAttempts: max, Logger: deliverytest.Logger(t)})
	t.Cleanup(func() { q.Close() })
	life := outbox.Lifecycle{MaxAttempts: max, ClaimLease: outbox.ClaimLeaseDefault}
	fail := errors.New("remote answered 503")
	ctx := context.Background()
	now := clock.Now()
	ms := now.UnixMilli()
	later := ms + 3_600_000 // no row set up here is due while the cases run
	for _, st := range outbox.Statuses {
		for _, kind := range []delivery.Disposition{delivery.Ack, delivery.Handoff, delivery.Return, delivery.Defer, delivery.Retry, delivery.DeadLetter} {
			for _, fresh := range []bool{true, false} {
				for _, last := range []bool{true, false} {
					name := fmt.Sprintf("Settle/%s/%s/fresh=%t/last=%t", st, kind, fresh, last)
					id := enqueueOne(t, s)
					msgs, err := q.Claim(ctx, 1)
					if err != nil || len(msgs) != 1 || msgs[0].EventID != id {
						t.Fatalf("%s: claim: %v, %d messages", name, err, len(msgs))
					}
					before := outbox.Row{Status: st, Attempts: 1, Relays: 1, ClaimedAt: ms - 1_000, NextAttemptAt: later, LastError: "earlier"}
					if fresh {
						before.ClaimedAt = ms
					}
					setRow(t, s, id, before)
					m := msgs[0]
					m.Attempt = 2
					if last {
						m.Attempt = max
					}
					res := delivery.Result{Msg: m, Kind: kind, Delay: 7 * time.Second, Until: now.Add(time.Hour + time.Minute)}
					if kind == delivery.Retry || kind == delivery.DeadLetter {
						res.Err = fail
					}
					u, err := life.Settle(res, ms, ms)
					if err != nil {
						t.Fatal(err)
					}
					want, _ := u.Apply(before)
					if err := q.Settle(ctx, []delivery.Result{res}); err != nil {
						t.Fatalf("%s: settle: %v", name, err)
					}
					if got := readRow(t, s, id); got != want {
						t.Errorf("%s: the store left %+v, the Lifecycle says %+v", name, got, want)
					}
					setRow(t, s, id, outbox.Row{Status: outbox.Done, NextAttemptAt: later})
				}
			}
		}
	}
	for _, st := range outbox.Statuses {
		for _, kind := range []delivery.Disposition{delivery.Ack, delivery.Retry, delivery.Defer, delivery.DeadLetter, delivery.Return} {
			for _, relays := range []int{2, 3, 4} { // the copy of round 2: recorded early, current, superseded
				for _, last := range []bool{true, false} {
					name := fmt.Sprintf("Record/%s/%s/relays=%d/last=%t", st, kind, relays, last)
					id := enqueueOne(t, s)
					before := outbox.Row{Status: st, Attempts: 1, Relays: relays, NextAttemptAt: later, LastError: "earlier"}
					if st == outbox.Processing {
						before.ClaimedAt = ms
					}
					setRow(t, s, id, before)
					res := delivery.Result{Msg: delivery.Message{EventID: id, Attempt: 3, Handoffs: 2}, Kind: kind,
						Delay: 5 * time.Second, Until: now.Add(20 * time.Second)}
					if kind == delivery.Retry || kind == delivery.DeadLetter {
						res.Err = fail
					}
					res, _ = outbox.Exhaust(res, last, "max deliveries (3) reached")
					o := outbox.Outcome(res, now, time.Hour, last)
					u, _, err := life.Record(o)
					if err != nil {
						t.Fatal(err)
					}
					want, applied := u.Apply(before)
					superseded, err := s.SettleOutcomes(ctx, now, nil, []delivery.RowOutcome{o})
					if err != nil {
						t.Fatalf("%s: record: %v", name, err)
					}
					if got := readRow(t, s, id); got != want {
						t.Errorf("%s: the store left %+v, the Lifecycle says %+v", name, got, want)
					}
					if w := !applied && u.Superseded(before); kind != delivery.Ack && superseded[0] != w {
						t.Errorf("%s: superseded = %t, the Lifecycle says %t", name, superseded[0], w)
					}
					setRow(t, s, id, outbox.Row{Status: outbox.Done, NextAttemptAt: later})
				}
			}
		}
	}
}

// runClaimTransitions checks the store's claim against outbox.Lifecycle.Claim for every status,
// due or not, and every attempt count, and its extension of claims against Lifecycle.Extend
// with the token fresh or taken over.
func runClaimTransitions(t *testing.T, open func(t *testing.T, clock *Clock) Outbox) {
	clock := NewClock(time.Now().Truncate(time.Millisecond))
	s := open(t, clock)
	const max = 4
	q := s.Queue(outbox.QueueConfig{MaxAttempts: max, Logger: deliverytest.Logger(t)})
	t.Cleanup(func() { q.Close() })
	life := outbox.Lifecycle{MaxAttempts: max, ClaimLease: outbox.ClaimLeaseDefault}
	ctx := context.Background()
	lease := outbox.ClaimLeaseDefault.Milliseconds()
	for _, st := range outbox.Statuses {
		for _, due := range []bool{true, false} {
			for attempts := range max {
				// The dead-letter sweep runs with a claim every quarter of the lease at most:
				// each claim here comes that much later, so it sweeps.
				clock.Advance(outbox.ClaimLeaseDefault / 4)
				ms := clock.Now().UnixMilli()
				later := ms + 3_600_000
				name := fmt.Sprintf("Claim/%s/due=%t/attempts=%d", st, due, attempts)
				id := enqueueOne(t, s)
				before := outbox.Row{Status: st, Attempts: attempts, Relays: 1, NextAttemptAt: ms + 1, LastError: "earlier"}
				if st == outbox.Processing {
					before.ClaimedAt = ms - lease + 1
				}
				if due {
					before.NextAttemptAt = ms
					if st == outbox.Processing {
						before.ClaimedAt = ms - lease
					}
				}
				setRow(t, s, id, before)
				want, step := life.Claim(before, ms)
				msgs, err := q.Claim(ctx, 10)
				if err != nil {
					t.Fatalf("%s: claim: %v", name, err)
				}
				claimed := len(msgs) == 1 && msgs[0].EventID == id
				if want := step != outbox.NotDue && step != outbox.Abandoned; claimed != want || len(msgs) > 1 {
					t.Errorf("%s: %d messages, the Lifecycle says step %d", name, len(msgs), step)
				}
				if claimed && msgs[0].Attempt != want.Attempts+1 {
					t.Errorf("%s: delivered as attempt %d, want %d", name, msgs[0].Attempt, want.Attempts+1)
				}
				if got := readRow(t, s, id); got != want {
					t.Errorf("%s: the store left %+v, the Lifecycle says %+v", name, got, want)
				}
				if claimed { // settle it away, so the queue holds nothing
					if err := q.Settle(ctx, []delivery.Result{{Msg: msgs[0], Kind: delivery.Ack}}); err != nil {
						t.Fatal(err)
					}
				}
				setRow(t, s, id, outbox.Row{Status: outbox.Done, NextAttemptAt: later})
			}
		}
	}
	// Between two sweeps a claim leaves an abandoned row on its last attempt alone (it neither
	// claims it nor spends an attempt); the next sweep dead-letters it (issue 34: the sweep is off
	// the claim's hot path).
	for _, st := range []outbox.Status{outbox.Processing, outbox.Relayed} {
		clock.Advance(outbox.ClaimLeaseDefault / 4)
		if _, err := q.Claim(ctx, 10); err != nil { // this one sweeps
			t.Fatal(err)
		}
		ms := clock.Now().UnixMilli()
		id := enqueueOne(t, s)
		before := outbox.Row{Status: st, Attempts: max - 1, Relays: 1, NextAttemptAt: ms, LastError: "earlier"}
		if st == outbox.Processing {
			before.ClaimedAt = ms - lease
		}
		setRow(t, s, id, before)
		if msgs, err := q.Claim(ctx, 10); err != nil || len(msgs) != 0 {
			t.Fatalf("Sweep/%s: a claim between sweeps took %d messages (%v), want none", st, len(msgs), err)
		}
		if got := readRow(t, s, id); got != before {
			t.Fatalf("Sweep/%s: a claim between sweeps left %+v, want the row untouched %+v", st, got, before)
		}
		clock.Advance(outbox.ClaimLeaseDefault / 4)
		if _, err := q.Claim(ctx, 10); err != nil {
			t.Fatal(err)
		}
		if got := readRow(t, s, id); got.Status != outbox.DeadLettered || got.Attempts != max {
			t.Fatalf("Sweep/%s: after the next sweep %+v, want dead-lettered after %d attempts", st, got, max)
		}
		setRow(t, s, id, outbox.Row{Status: outbox.Done, NextAttemptAt: ms + 3_600_000})
	}
	for _, st := range outbox.Statuses {
		for _, fresh := range []bool{true, false} {
			name := fmt.Sprintf("Extend/%s/fresh=%t", st, fresh)
			id := enqueueOne(t, s)
			msgs, err := q.Claim(ctx, 1)
			if err != nil || len(msgs) != 1 || msgs[0].EventID != id {
				t.Fatalf("%s: claim: %v, %d messages", name, err, len(msgs))
			}
			token := clock.Now().UnixMilli()
			before := outbox.Row{Status: st, Relays: 1, ClaimedAt: token - 1_000, NextAttemptAt: token + 3_600_000}
			if fresh {
				before.ClaimedAt = token
			}
			setRow(t, s, id, before)
			clock.Advance(time.Second)
			want, _ := life.Extend(token, clock.Now().UnixMilli()).Apply(before)
			if err := q.(delivery.Extender).Extend(ctx); err != nil {
				t.Fatalf("%s: extend: %v", name, err)
			}
			if got := readRow(t, s, id); got != want {
				t.Errorf("%s: the store left %+v, the Lifecycle says %+v", name, got, want)
			}
			setRow(t, s, id, outbox.Row{Status: outbox.Done, NextAttemptAt: token + 3_600_000})
		}
	}
}

func enqueueOne(t *testing.T, s Outbox) string {
	t.Helper()
	h := &harness{store: s}
	return h.Publish(t, domain.SearchReindexRequested{})[0]
}

// setRow puts the row of event id in state r through the raw connection.
func setRow(t *testing.T, s Outbox, id string, r outbox.Row) {
	t.Helper()
	var claimed, lastErr any
	if r.ClaimedAt != 0 {
		claimed = r.ClaimedAt
	}
	if r.LastError != "" {
		lastErr = r.LastError
	}
	_, err := s.DB.Exec(s.DB.Rebind(`UPDATE event_queue SET status = ?, attempts = ?, relays = ?, claimed_at = ?,
		next_attempt_at = ?, last_error = ? WHERE event_id = ?`),
		string(r.Status), r.Attempts, r.Relays, claimed, r.NextAttemptAt, lastErr, id)
	if err != nil {
		t.Fatal(err)
	}
}

// readRow reads the row of event id through the raw connection.
func readRow(t *testing.T, s Outbox, id string) outbox.Row {
	t.Helper()
	var r outbox.Row
	var status string
	err := s.DB.QueryRow(s.DB.Rebind(`SELECT status, attempts, relays, coalesce(claimed_at, 0), next_attempt_at,
		coalesce(last_error, '') FROM event_queue WHERE event_id = ?`), id).
		Scan(&status, &r.Attempts, &r.Relays, &r.ClaimedAt, &r.NextAttemptAt, &r.LastError)
	if err != nil {
		t.Fatal(err)
	}
	r.Status = outbox.Status(status)
	return r
}
