package outboxtest

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/delivery"
)

// runLedgerRenew checks the store's Ledger.Renew: a claim still carrying its token moves to the
// new one (and is fresh again), one taken over meanwhile is not renewed and keeps its new owner.
func runLedgerRenew(t *testing.T, open func(t *testing.T, clock *Clock) Outbox) {
	t.Parallel()
	const lease = 8 * time.Second
	ctx := context.Background()
	clock := NewClock(time.Now().Truncate(time.Millisecond))
	l := open(t, clock).Ledger
	kept := delivery.Key{EventID: uuid.NewString(), Handler: "kept"}
	lost := delivery.Key{EventID: uuid.NewString(), Handler: "lost"}
	t0 := clock.Now()
	claims, err := l.Claim(ctx, t0, lease, []delivery.Key{kept, lost})
	if err != nil || claims[0].State != delivery.Acquired || claims[1].State != delivery.Acquired {
		t.Fatalf("claims: %+v %v", claims, err)
	}
	t1 := t0.Add(lease + time.Second)
	if other, err := l.Claim(ctx, t1, lease, []delivery.Key{lost}); err != nil || !other[0].TookOver {
		t.Fatalf("take-over: %+v %v", other, err)
	}
	held, err := l.Renew(ctx, t1, []delivery.Mark{{Key: kept, Token: claims[0].Token}, {Key: lost, Token: claims[1].Token}})
	if err != nil || len(held) != 2 || !held[0] || held[1] {
		t.Fatalf("renew = %v %v; want [true false]", held, err)
	}
	// The renewed claim is fresh at t1 + lease/2; the old token no longer marks it.
	again, err := l.Claim(ctx, t1.Add(lease/2), lease, []delivery.Key{kept})
	if err != nil || again[0].State != delivery.Held {
		t.Fatalf("claim after the renewal: %+v %v; want held", again, err)
	}
	if err := l.Settle(ctx, t1, []delivery.Mark{{Key: kept, Token: claims[0].Token, Done: true}}); err != nil {
		t.Fatal(err)
	}
	if err := l.Settle(ctx, t1, []delivery.Mark{{Key: kept, Token: t1.UnixMilli(), Done: true}}); err != nil {
		t.Fatal(err)
	}
	if done, err := l.Claim(ctx, t1, lease, []delivery.Key{kept}); err != nil || done[0].State != delivery.Done {
		t.Fatalf("claim after the renewed token's mark: %+v %v; want done", done, err)
	}
}
