package outbox_test

import (
	"testing"
	"testing/synctest"
	"time"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/outbox"
)

// TestLeasesExpireOnTime runs the Lifecycle's clocks on synctest's fake time: a claim belongs
// to its claimer for exactly the claim lease, a ledger claim for exactly the ledger lease, and a
// relayed row waits exactly its re-relay horizon before it is claimed again.
func TestLeasesExpireOnTime(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ms := func() int64 { return time.Now().UnixMilli() }
		life := outbox.Lifecycle{MaxAttempts: 5, ClaimLease: 10 * time.Minute}

		// The claim lease.
		row, step := life.Claim(outbox.Row{Status: outbox.Pending, NextAttemptAt: ms()}, ms())
		if step != outbox.Fresh {
			t.Fatalf("a due row: step %d", step)
		}
		time.Sleep(life.ClaimLease - time.Millisecond)
		if _, step := life.Claim(row, ms()); step != outbox.NotDue {
			t.Fatalf("a claim was taken a millisecond before its lease ended (step %d)", step)
		}
		time.Sleep(time.Millisecond)
		if r, step := life.Claim(row, ms()); step != outbox.Reclaimed || r.Attempts != 1 {
			t.Fatalf("a claim whose lease ended: step %d, %d attempts", step, r.Attempts)
		}

		// The ledger lease.
		const ledgerLease = 30 * time.Minute
		entry, c := outbox.ClaimEntry(outbox.Entry{}, ms(), ledgerLease)
		time.Sleep(ledgerLease - time.Millisecond)
		if _, c2 := outbox.ClaimEntry(entry, ms(), ledgerLease); c2.State != delivery.Held || !c2.HeldUntil.Equal(time.UnixMilli(c.Token).Add(ledgerLease)) {
			t.Fatalf("a ledger claim inside its lease: %+v", c2)
		}
		time.Sleep(time.Millisecond)
		if _, c2 := outbox.ClaimEntry(entry, ms(), ledgerLease); c2.State != delivery.Acquired || !c2.TookOver {
			t.Fatalf("a ledger claim past its lease: %+v", c2)
		}

		// The re-relay horizon, set by the relay's handoff.
		const horizon = 7*time.Minute + 35*time.Second
		row, _ = life.Claim(outbox.Row{Status: outbox.Pending, NextAttemptAt: ms()}, ms())
		u, err := life.Settle(delivery.Result{Kind: delivery.Handoff, Until: time.Now().Add(horizon)}, row.ClaimedAt, ms())
		if err != nil {
			t.Fatal(err)
		}
		row, _ = u.Apply(row)
		time.Sleep(horizon - time.Millisecond)
		if _, step := life.Claim(row, ms()); step != outbox.NotDue {
			t.Fatalf("a relayed row was claimed before its horizon (step %d)", step)
		}
		time.Sleep(time.Millisecond)
		if r, step := life.Claim(row, ms()); step != outbox.Rerelayed || r.Attempts != 1 || r.LastError != outbox.LostError {
			t.Fatalf("a relayed row past its horizon: step %d, %+v", step, r)
		}
	})
}
