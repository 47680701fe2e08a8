package postgres_test

import (
	"context"
	"database/sql"
	"log/slog"
	"testing"
	"time"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/postgres/pgtest"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// TestClaimsDoNotWaitForTheWALFlush: on a cluster with PostgreSQL's durable defaults, claiming
// rows and their ledger entries commits without a WAL flush of its own (issue 34: two flushes
// per claim cycle stood between a commit and its handler). 40 claim cycles, one row each, in a
// loop: durable, each claim and each ledger claim flushed (73 of 80 in a run before the change);
// asynchronous, none but the WAL writer's background flushes, which the cluster here makes once
// every 10 s. The settle stays durable.
func TestClaimsDoNotWaitForTheWALFlush(t *testing.T) {
	pgtest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The WAL writer's background flush of asynchronous commits, every 200 ms by default, at
	// its longest instead, so the count below is the claims' own.
	srv, err := pgtest.StartDurable(ctx, "wal_writer_delay = 10000")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	url, err := srv.CreateDatabase(ctx, "async_claims")
	if err != nil {
		t.Fatal(err)
	}
	s, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	const cycles = 40
	batch := make([]domain.Event, cycles)
	for i := range batch {
		batch[i] = domain.SearchReindexRequested{}
	}
	if err := s.Enqueue(ctx, batch...); err != nil {
		t.Fatal(err)
	}
	q := s.Queue(outbox.QueueConfig{Logger: deliverytest.Logger(t)})
	defer q.Close()
	ledger := s.Ledger()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	syncs := func() int64 {
		var n int64
		if err := db.QueryRowContext(ctx, `SELECT wal_sync FROM pg_stat_wal`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var msgs []delivery.Message
	before := syncs()
	start := time.Now()
	for range cycles {
		m, err := q.Claim(ctx, 1)
		if err != nil || len(m) != 1 {
			t.Fatalf("claim: %v, %d rows", err, len(m))
		}
		if _, err := ledger.Claim(ctx, time.Now(), time.Minute, []delivery.Key{{EventID: m[0].EventID, Handler: "h"}}); err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m...)
	}
	took, flushed := time.Since(start), syncs()-before
	// A few for the WAL writer's flushes on a slow machine (one per 10 s).
	if allowed := int64(took/(10*time.Second)) + 3; flushed > allowed {
		t.Fatalf("%d claim cycles in %s made %d WAL flushes, want at most %d: the claims waited for their flushes", cycles, took.Round(time.Millisecond), flushed, allowed)
	}
	for _, m := range msgs {
		if err := q.Settle(ctx, []delivery.Result{{Msg: m, Kind: delivery.Ack}}); err != nil {
			t.Fatal(err)
		}
	}
}
