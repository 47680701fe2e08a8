package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// BenchmarkClaimSettle measures the queue's hot path, one batch of claimBatch rows per op, as the
// pump runs it: claim the rows, claim one ledger key per row, then settle the rows acked with
// their ledger marks done. The backlog is refilled outside the timer, so every claim finds a
// full batch due.
func BenchmarkClaimSettle(b *testing.B) {
	const claimBatch = 100
	ctx := context.Background()
	s := newStore(b)
	q := s.Queue(outbox.QueueConfig{Logger: testLogger(b)})
	b.Cleanup(func() { q.Close() })
	l := s.Ledger()
	batch := make([]domain.Event, claimBatch)
	for i := range batch {
		batch[i] = reindex
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		if err := s.Enqueue(ctx, batch...); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		msgs, err := q.Claim(ctx, claimBatch)
		if err != nil || len(msgs) != claimBatch {
			b.Fatalf("claimed %d (err %v), want %d", len(msgs), err, claimBatch)
		}
		keys := make([]delivery.Key, len(msgs))
		for i, m := range msgs {
			keys[i] = delivery.Key{EventID: m.EventID, Handler: "bench"}
		}
		now := time.Now()
		claims, err := l.Claim(ctx, now, delivery.LedgerLeaseDefault, keys)
		if err != nil {
			b.Fatal(err)
		}
		results := make([]delivery.Result, len(msgs))
		for i, m := range msgs {
			results[i] = delivery.Result{Msg: m, Kind: delivery.Ack,
				Marks: []delivery.Mark{{Key: claims[i].Key, Token: claims[i].Token, Done: true}}}
		}
		if err := q.Settle(ctx, results); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLedgerClaim measures one batch's ledger claim as the engine makes it: 100 fresh
// events × 3 handlers per op, every key new (the drain's case).
func BenchmarkLedgerClaim(b *testing.B) {
	ctx := context.Background()
	s := newStore(b)
	l := s.Ledger()
	b.ReportAllocs()
	for b.Loop() {
		keys := make([]delivery.Key, 0, 300)
		for range 100 {
			id := uuid.Must(uuid.NewV7()).String() // time-ordered, as event ids are
			for _, h := range []string{"a", "b", "c"} {
				keys = append(keys, delivery.Key{EventID: id, Handler: h})
			}
		}
		claims, err := l.Claim(ctx, time.Now(), delivery.LedgerLeaseDefault, keys)
		if err != nil || len(claims) != len(keys) || claims[0].State != delivery.Acquired {
			b.Fatalf("claim: %v", err)
		}
	}
}
