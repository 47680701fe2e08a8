package outbox_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/outbox"
)

const (
	maxAttempts = 5
	now         = int64(1_000_000_000)
	token       = now - 60_000 // the settling delivery's claim
	newer       = now - 1_000  // another claimer's, after a reclaim
)

var (
	life   = outbox.Lifecycle{MaxAttempts: maxAttempts, ClaimLease: 600 * time.Second}
	settle = []delivery.Disposition{delivery.Ack, delivery.Handoff, delivery.Return, delivery.Defer, delivery.Retry, delivery.DeadLetter}
	failed = errors.New("boom")
)

// TestSettleModel walks every combination of the row's status, the delivery's outcome, the
// freshness of its claim token and whether it was the last attempt, and checks each rule of the
// outbox records on what the Lifecycle decides and its update does to the row.
func TestSettleModel(t *testing.T) {
	t.Parallel()
	for _, st := range outbox.Statuses {
		for _, kind := range settle {
			for _, fresh := range []bool{true, false} {
				for _, last := range []bool{true, false} {
					name := fmt.Sprintf("%s/%s/fresh=%t/last=%t", st, kind, fresh, last)
					t.Run(name, func(t *testing.T) {
						t.Parallel()
						checkSettle(t, st, kind, fresh, last)
					})
				}
			}
		}
	}
}

func checkSettle(t *testing.T, st outbox.Status, kind delivery.Disposition, fresh, last bool) {
	attempt := 2
	if last {
		attempt = maxAttempts
	}
	before := outbox.Row{Status: st, Attempts: attempt - 1, Relays: 1, ClaimedAt: newer, NextAttemptAt: now - 5, LastError: "earlier"}
	if fresh {
		before.ClaimedAt = token
	}
	until := time.UnixMilli(now + 30_000)
	res := delivery.Result{Msg: delivery.Message{EventID: "e", Attempt: attempt}, Kind: kind, Delay: 7 * time.Second, Until: until, Err: failed}
	u, err := life.Settle(res, token, now)
	if err != nil {
		t.Fatal(err)
	}
	after, applied := u.Apply(before)

	// Only an ack may settle a row whose claim is someone else's; nothing settles a row that
	// left the claimed states.
	want := st == outbox.Processing && fresh
	if kind == delivery.Ack {
		want = st == outbox.Pending || st == outbox.Processing
	}
	if applied != want {
		t.Fatalf("applied = %t, want %t", applied, want)
	}
	if !applied {
		if after != before {
			t.Fatalf("a guarded-out update changed the row: %+v → %+v", before, after)
		}
		return
	}
	if after.ClaimedAt != 0 {
		t.Errorf("claimed_at %d after a settle, want NULL", after.ClaimedAt)
	}
	spent := after.Attempts - before.Attempts
	switch kind {
	case delivery.Ack:
		expect(t, after, outbox.Done, 0, spent, before.NextAttemptAt)
		if after.LastError != "" {
			t.Errorf("last_error %q kept on a done row", after.LastError)
		}
	case delivery.Handoff:
		expect(t, after, outbox.Relayed, 0, spent, until.UnixMilli())
		if after.Relays != before.Relays+1 {
			t.Errorf("relays %d, want %d", after.Relays, before.Relays+1)
		}
	case delivery.Return:
		expect(t, after, outbox.Pending, 0, spent, before.NextAttemptAt)
	case delivery.Defer:
		expect(t, after, outbox.Pending, 0, spent, until.UnixMilli())
	case delivery.Retry:
		if last {
			expect(t, after, outbox.DeadLettered, 1, spent, after.NextAttemptAt)
		} else {
			expect(t, after, outbox.Pending, 1, spent, now+7_000)
		}
		if u.CountDead != last {
			t.Errorf("CountDead = %t, want %t: the queue counts the dead letters it decides", u.CountDead, last)
		}
	case delivery.DeadLetter:
		expect(t, after, outbox.DeadLettered, 1, spent, after.NextAttemptAt)
		if u.CountDead {
			t.Error("a dead letter the engine decided is counted by the queue too")
		}
	}
	if (kind == delivery.Retry || kind == delivery.DeadLetter) && after.LastError != failed.Error() {
		t.Errorf("last_error %q, want the failure", after.LastError)
	}
}

func expect(t *testing.T, r outbox.Row, status outbox.Status, attempts, spent int, next int64) {
	t.Helper()
	if r.Status != status {
		t.Errorf("status %s, want %s", r.Status, status)
	}
	if spent != attempts {
		t.Errorf("%d attempts spent, want %d", spent, attempts)
	}
	if r.NextAttemptAt != next {
		t.Errorf("next_attempt_at %d, want %d", r.NextAttemptAt, next)
	}
}

// roundCase places the consumer's copy against the row's relay rounds.
type roundCase struct {
	name   string
	relays func(round int) int // the row's relays when the copy of round is recorded
}

var rounds = []roundCase{
	{"current", func(round int) int { return round + 1 }},    // the relay recorded the copy's handoff
	{"early", func(round int) int { return round }},          // the consumer beat the relay's handoff
	{"superseded", func(round int) int { return round + 2 }}, // a later round was handed off
}

// TestRecordModel walks every combination of the row's status, a broker consumer's result, the
// copy's round against the row's (current, recorded before the handoff, superseded) and whether
// it was the broker's last delivery, through Exhaust, Outcome and Record, and checks each rule
// of docs/adr/0002.
func TestRecordModel(t *testing.T) {
	t.Parallel()
	for _, st := range outbox.Statuses {
		for _, kind := range []delivery.Disposition{delivery.Ack, delivery.Retry, delivery.Defer, delivery.DeadLetter, delivery.Return} {
			for _, rc := range rounds {
				for _, last := range []bool{true, false} {
					name := fmt.Sprintf("%s/%s/%s/last=%t", st, kind, rc.name, last)
					t.Run(name, func(t *testing.T) {
						t.Parallel()
						checkRecord(t, st, kind, rc, last)
					})
				}
			}
		}
	}
}

func checkRecord(t *testing.T, st outbox.Status, kind delivery.Disposition, rc roundCase, last bool) {
	const round, deliveries = 2, 3
	at := time.UnixMilli(now)
	before := outbox.Row{Status: st, Attempts: 1, Relays: rc.relays(round), NextAttemptAt: now + 10_000, LastError: "earlier"}
	if st == outbox.Processing {
		before.ClaimedAt = token
	}
	res := delivery.Result{Msg: delivery.Message{EventID: "e", Attempt: deliveries, Handoffs: round}, Kind: kind,
		Delay: 5 * time.Second, Until: at.Add(20 * time.Second)}
	if kind == delivery.Retry || kind == delivery.DeadLetter {
		res.Err = failed // the engine gives a defer, a return and an ack no error
	}
	res, exhausted := outbox.Exhaust(res, last, "max deliveries (3) reached")
	if exhausted != (kind == delivery.Retry && last) {
		t.Fatalf("exhausted = %t: only a failure on the last delivery is the consumer's dead letter", exhausted)
	}
	o := outbox.Outcome(res, at, time.Minute, last)
	u, ok, err := life.Record(o)
	if err != nil || !ok {
		t.Fatalf("record: %v, %t", err, ok)
	}
	after, applied := u.Apply(before)

	// What the row's outcome is, from the consumer's result.
	var want delivery.Disposition
	switch {
	case kind == delivery.Ack:
		want = delivery.Ack
	case kind == delivery.DeadLetter || (kind == delivery.Retry && last):
		want = delivery.DeadLetter
	case (kind == delivery.Defer || kind == delivery.Return) && last:
		want = delivery.Return
	default:
		want = delivery.Retry
	}
	if o.Kind != want {
		t.Fatalf("recorded %s, want %s", o.Kind, want)
	}
	superseded := before.Relays > round+1
	var guard bool
	switch want {
	case delivery.Ack:
		guard = st != outbox.Done // an ack counts whoever's copy it is
	case delivery.DeadLetter:
		guard = st != outbox.Done && !superseded
	case delivery.Return:
		guard = (st == outbox.Relayed || st == outbox.Processing) && !superseded
	case delivery.Retry:
		guard = st == outbox.Relayed && !superseded
	}
	if applied != guard {
		t.Fatalf("applied = %t, want %t", applied, guard)
	}
	if !applied {
		if after != before {
			t.Fatalf("a guarded-out outcome changed the row: %+v → %+v", before, after)
		}
		if got, want := u.Superseded(before), st == outbox.Done || superseded; want != got && want {
			t.Fatalf("superseded = %t, want %t", got, want)
		}
		if u.Superseded(before) && !(st == outbox.Done || superseded) {
			t.Fatal("an outcome reported superseded with no later round and no done row")
		}
		return
	}
	if after.Relays < round+1 {
		t.Errorf("relays %d after recording round %d: the next publish would reuse a message id", after.Relays, round)
	}
	spent := after.Attempts - before.Attempts
	switch want {
	case delivery.Ack:
		expect(t, after, outbox.Done, deliveries-1, spent, before.NextAttemptAt)
	case delivery.DeadLetter:
		expect(t, after, outbox.DeadLettered, deliveries, spent, before.NextAttemptAt)
	case delivery.Return:
		next := now
		if kind == delivery.Defer {
			next = res.Until.UnixMilli()
		}
		// The copy's deliveries before the handed-back one stay counted: the relay's next copy
		// carries them (ADR 0010).
		expect(t, after, outbox.Pending, deliveries-1, spent, next)
	case delivery.Retry:
		next := now + 5_000 + 60_000
		if kind == delivery.Defer {
			next = res.Until.UnixMilli() + 60_000
		}
		expect(t, after, st, 0, spent, max(next, before.NextAttemptAt))
		if kind == delivery.Defer && after.LastError != before.LastError {
			t.Errorf("a defer replaced last_error with %q: it is no failure", after.LastError)
		}
	}
}

// TestRecordWithoutEventID: a foreign writer's row has no event id and gets no outcome.
func TestRecordWithoutEventID(t *testing.T) {
	t.Parallel()
	if _, ok, err := life.Record(delivery.RowOutcome{Kind: delivery.Ack}); ok || err != nil {
		t.Fatalf("recorded an outcome with no event id: %t, %v", ok, err)
	}
}

// TestClaimModel walks every status and attempt count through a claim with the row due and not
// due: only due rows are claimed, an abandoned or lost delivery counts, and the last one
// dead-letters the row instead of claiming it.
func TestClaimModel(t *testing.T) {
	t.Parallel()
	lease := life.ClaimLease.Milliseconds()
	for _, st := range outbox.Statuses {
		for _, due := range []bool{true, false} {
			for attempts := range maxAttempts {
				r := outbox.Row{Status: st, Attempts: attempts, ClaimedAt: now - lease + 1, NextAttemptAt: now + 1}
				if due {
					r.ClaimedAt, r.NextAttemptAt = now-lease, now
				}
				if st != outbox.Processing {
					r.ClaimedAt = 0
				}
				after, step := life.Claim(r, now)
				claimable := due && (st == outbox.Pending || st == outbox.Processing || st == outbox.Relayed)
				if (step != outbox.NotDue) != claimable {
					t.Fatalf("%s due=%t: step %d", st, due, step)
				}
				switch {
				case !claimable:
					if after != r {
						t.Fatalf("%s due=%t: a row not due changed", st, due)
					}
				case st == outbox.Pending:
					if step != outbox.Fresh || after.Attempts != attempts || after.Status != outbox.Processing || after.ClaimedAt != now {
						t.Fatalf("a due pending row: %d %+v", step, after)
					}
				case attempts+1 >= maxAttempts:
					if step != outbox.Abandoned || after.Status != outbox.DeadLettered || after.Attempts != attempts+1 || after.ClaimedAt != 0 {
						t.Fatalf("%s on its last attempt: %d %+v", st, step, after)
					}
				default:
					if after.Status != outbox.Processing || after.Attempts != attempts+1 || after.ClaimedAt != now || after.LastError == "" {
						t.Fatalf("%s reclaimed: %d %+v", st, step, after)
					}
				}
			}
		}
	}
}

// TestExtendModel: a claim is extended only while it still carries its token.
func TestExtendModel(t *testing.T) {
	t.Parallel()
	for _, st := range outbox.Statuses {
		for _, claimed := range []int64{token, newer} {
			r := outbox.Row{Status: st, ClaimedAt: claimed}
			after, ok := life.Extend(token, now).Apply(r)
			if want := st == outbox.Processing && claimed == token; ok != want || (ok && after.ClaimedAt != now) || (!ok && after != r) {
				t.Fatalf("%s claimed at %d: extended %t to %d", st, claimed, ok, after.ClaimedAt)
			}
		}
	}
}

// TestLedgerModel walks every ledger entry (none, in progress fresh or expired, done) through a
// claim and every mark and renewal with a fresh or stale token.
func TestLedgerModel(t *testing.T) {
	t.Parallel()
	const lease = 1800 * time.Second
	ms := lease.Milliseconds()
	entries := map[string]outbox.Entry{
		"none":    {},
		"fresh":   {Status: outbox.InProgress, StartedAt: now - ms + 1},
		"expired": {Status: outbox.InProgress, StartedAt: now - ms, Takeovers: 1},
		"done":    {Status: outbox.Handled, StartedAt: now - ms},
	}
	for name, e := range entries {
		after, c := outbox.ClaimEntry(e, now, lease)
		switch name {
		case "none":
			if c.State != delivery.Acquired || c.TookOver || after.StartedAt != now || after.Status != outbox.InProgress {
				t.Errorf("none: %+v %+v", c, after)
			}
		case "fresh":
			if c.State != delivery.Held || !c.HeldUntil.Equal(time.UnixMilli(e.StartedAt+ms)) || after != e {
				t.Errorf("fresh: %+v %+v", c, after)
			}
		case "expired":
			if c.State != delivery.Acquired || !c.TookOver || c.Token != now || after.Takeovers != 2 {
				t.Errorf("expired: %+v %+v", c, after)
			}
		case "done":
			if c.State != delivery.Done || after != e {
				t.Errorf("done: %+v %+v", c, after)
			}
		}
		for _, tok := range []int64{e.StartedAt, e.StartedAt - 1} {
			owns := e.Status == outbox.InProgress && tok == e.StartedAt
			for _, done := range []bool{true, false} {
				got, ok := outbox.MarkEntry(e, delivery.Mark{Token: tok, Done: done}, now)
				if ok != owns || (!ok && got != e) || (ok && done && got.Status != outbox.Handled) || (ok && !done && got.Status != "") {
					t.Errorf("%s: mark done=%t with token %d: %t %+v", name, done, tok, ok, got)
				}
			}
			got, ok := outbox.RenewEntry(e, tok, now)
			if ok != owns || (ok && got.StartedAt != now) || (!ok && got != e) {
				t.Errorf("%s: renew with token %d: %t %+v", name, tok, ok, got)
			}
		}
	}
}

// TestClaimsOfRepeatedKeys: a key asked twice in one claim is acquired once; the copy sees it
// held (or done) like any other delivery.
func TestClaimsOfRepeatedKeys(t *testing.T) {
	t.Parallel()
	a, b := delivery.Key{EventID: "a", Handler: "h"}, delivery.Key{EventID: "b", Handler: "h"}
	state := map[delivery.Key]outbox.Entry{b: {Status: outbox.Handled}}
	asked := 0
	claims, err := outbox.Claims([]delivery.Key{a, b, a, b}, now, time.Minute, func(k delivery.Key) (delivery.Claim, error) {
		asked++
		var c delivery.Claim
		state[k], c = outbox.ClaimEntry(state[k], now, time.Minute)
		return c, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if asked != 2 {
		t.Errorf("the ledger was asked %d times for two keys", asked)
	}
	if claims[0].State != delivery.Acquired || claims[2].State != delivery.Held || claims[2].Key != a ||
		!claims[2].HeldUntil.Equal(time.UnixMilli(now+time.Minute.Milliseconds())) {
		t.Errorf("repeated acquired key: %+v, %+v", claims[0], claims[2])
	}
	for i, k := range []delivery.Key{a, b, a, b} {
		if claims[i].Key != k {
			t.Errorf("claim %d answers for %v, want %v", i, claims[i].Key, k)
		}
	}
	if claims[1].State != delivery.Done || claims[3].State != delivery.Done {
		t.Errorf("repeated done key: %+v, %+v", claims[1], claims[3])
	}
}
