package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/outbox"
)

// TestOperatorTools: what `worker events` shows and changes: counts, a dead letter listed,
// retried, discarded, and done rows purged by age.
func TestOperatorTools(t *testing.T) {
	t.Parallel()
	b := setup(t, 5, nil)
	ctx := context.Background()
	dead, other, done := b.enqueue(t), b.enqueue(t), b.enqueue(t)
	msgs, err := b.q.Claim(ctx, 10)
	if err != nil || len(msgs) != 3 {
		t.Fatalf("claim: %d %v", len(msgs), err)
	}
	var results []delivery.Result
	for _, m := range msgs {
		switch m.EventID {
		case dead, other:
			results = append(results, delivery.Result{Msg: m, Kind: delivery.DeadLetter, Err: errors.New("gone")})
		case done:
			results = append(results, delivery.Result{Msg: m, Kind: delivery.Ack})
		}
	}
	if err := b.q.Settle(ctx, results); err != nil {
		t.Fatal(err)
	}
	counts, err := b.s.QueueCounts(ctx)
	if err != nil || counts["dead_lettered"] != 2 || counts["done"] != 1 {
		t.Fatalf("counts %v %v", counts, err)
	}
	if _, ok, err := b.s.OldestPending(ctx); err != nil || ok {
		t.Fatalf("oldest pending: %v %v, want none", ok, err)
	}
	listed, err := b.s.DeadLettered(ctx, outbox.DeadFilter{IDs: []string{dead}})
	if err != nil || len(listed) != 1 || listed[0].EventID != dead || listed[0].LastError != "gone" {
		t.Fatalf("dead-lettered %+v %v", listed, err)
	}
	if rows, err := b.s.ListEvents(ctx, "dead_lettered", "", 10); err != nil || len(rows) != 2 {
		t.Fatalf("list: %d %v", len(rows), err)
	}
	if n, err := b.s.RetryEvents(ctx, []string{dead, done}, ""); err != nil || n != 1 {
		t.Fatalf("retry: %d %v, want the dead letter only", n, err)
	}
	if r := b.row(t, dead); r.Status != "pending" || r.Attempts != 0 {
		t.Fatalf("retried row %+v", r)
	}
	if n, err := b.s.DiscardEvents(ctx, outbox.DeadFilter{}); err != nil || n != 1 {
		t.Fatalf("discard: %d %v, want the other dead letter", n, err)
	}
	if _, _, err := b.s.ShowEvent(ctx, other); !errors.Is(err, outbox.ErrEventNotFound) {
		t.Fatalf("discarded row: %v", err)
	}
	later := b.clock.Now().Add(48 * time.Hour)
	if n, err := b.s.CountPurgeable(ctx, later, 24*time.Hour); err != nil || n != 1 {
		t.Fatalf("purgeable: %d %v", n, err)
	}
	if n, err := b.s.PurgeDone(ctx, later, 24*time.Hour); err != nil || n != 1 {
		t.Fatalf("purge: %d %v", n, err)
	}
	st, err := b.s.Stats(ctx)
	if err != nil || st.ByStatus["pending"] != 1 || st.ByStatus["done"] != 0 || st.OldestPendingAge == nil {
		t.Fatalf("stats %+v %v", st, err)
	}
}
