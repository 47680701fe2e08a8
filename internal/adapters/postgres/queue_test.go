package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
	"moviesdiary/internal/outbox/outboxtest"
)

// TestClaimersNeverShareARow: workers on different connections (two stores, as two hosts)
// claiming one backlog at once each get their own rows, never the same one, and between them
// all of it: SKIP LOCKED passes over the rows another claim holds instead of waiting for them.
func TestClaimersNeverShareARow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, url := open(t)
	b, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const events = 600
	batch := make([]domain.Event, events)
	for i := range batch {
		batch[i] = domain.SearchReindexRequested{}
	}
	if err := a.Enqueue(ctx, batch...); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	claimedBy := map[int64]int{} // row id → claims
	var wg sync.WaitGroup
	for w := range 6 {
		store := a
		if w%2 == 1 {
			store = b
		}
		q := store.Queue(outbox.QueueConfig{Logger: deliverytest.Logger(t)})
		wg.Go(func() {
			for {
				msgs, err := q.Claim(ctx, 7)
				if err != nil {
					t.Error(err)
					return
				}
				if len(msgs) == 0 {
					return
				}
				mu.Lock()
				for _, m := range msgs {
					claimedBy[m.RowID]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(claimedBy) != events {
		t.Fatalf("%d rows claimed, want all %d", len(claimedBy), events)
	}
	for id, n := range claimedBy {
		if n != 1 {
			t.Fatalf("row %d claimed %d times", id, n)
		}
	}
}

// TestStaleOwnerCannotClobber: after its claim expired and another worker claimed the row, the
// old owner can neither extend the claim nor hand the row off; the new owner's ack counts.
func TestStaleOwnerCannotClobber(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := outboxtest.NewClock(time.Now().Truncate(time.Millisecond))
	s, _ := open(t, postgres.WithClock(clock.Now))
	if err := s.Enqueue(ctx, domain.SearchReindexRequested{}); err != nil {
		t.Fatal(err)
	}
	stale, fresh := s.Queue(outbox.QueueConfig{Logger: deliverytest.Logger(t)}), s.Queue(outbox.QueueConfig{Logger: deliverytest.Logger(t)})
	old, err := stale.Claim(ctx, 10)
	if err != nil || len(old) != 1 {
		t.Fatalf("first claim: %d, %v", len(old), err)
	}
	clock.Advance(outbox.ClaimLeaseDefault)
	now, err := fresh.Claim(ctx, 10)
	if err != nil || len(now) != 1 || now[0].RowID != old[0].RowID {
		t.Fatalf("claim after the lease: %+v, %v", now, err)
	}
	row := func() outbox.EventRow {
		r, _, err := s.ShowEvent(ctx, fmt.Sprint(old[0].RowID))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	owned := row()
	clock.Advance(time.Minute)
	if err := stale.Extend(ctx); err != nil {
		t.Fatal(err)
	}
	if err := stale.Settle(ctx, []delivery.Result{{Msg: old[0], Kind: delivery.Handoff, Until: clock.Now().Add(time.Hour)}}); err != nil {
		t.Fatal(err)
	}
	if r := row(); r.Status != "processing" || !r.ClaimedAt.Equal(*owned.ClaimedAt) || r.Attempts != owned.Attempts {
		t.Fatalf("the stale owner changed the row: %+v, was %+v", r, owned)
	}
	if err := fresh.Extend(ctx); err != nil {
		t.Fatal(err)
	}
	if r := row(); !r.ClaimedAt.Equal(clock.Now()) {
		t.Fatalf("the owner's extension left claimed_at %v, want %v", r.ClaimedAt, clock.Now())
	}
	if err := fresh.Settle(ctx, []delivery.Result{{Msg: now[0], Kind: delivery.Ack}}); err != nil {
		t.Fatal(err)
	}
	if r := row(); r.Status != "done" {
		t.Fatalf("the owner's ack left %+v", r)
	}
}

// TestLedgerClaimsRace: deliveries on different connections claiming the same keys at once
// acquire each key exactly once; the others see it held.
func TestLedgerClaimsRace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, url := open(t)
	b, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var keys []delivery.Key
	for i := range 50 {
		keys = append(keys, delivery.Key{EventID: fmt.Sprintf("event-%02d", i), Handler: "h"})
	}
	const claimers = 6
	acquired := make([]int, len(keys))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for c := range claimers {
		l := a.Ledger()
		if c%2 == 1 {
			l = b.Ledger()
		}
		mine := slices.Clone(keys)
		if c%3 == 0 {
			slices.Reverse(mine) // another order: the ledger sorts, so no deadlock
		}
		wg.Go(func() {
			claims, err := l.Claim(ctx, time.Now(), time.Hour, mine)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, cl := range claims {
				if cl.State == delivery.Acquired {
					i := slices.Index(keys, cl.Key)
					acquired[i]++
				}
			}
		})
	}
	wg.Wait()
	for i, n := range acquired {
		if n != 1 {
			t.Fatalf("key %v acquired %d times", keys[i], n)
		}
	}
}
