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
// per claim cycle stood between a commit and its handler). 40 claim cycles, one row each: after
// each claim and each ledger claim, WAL written but not yet flushed means the commit did not
// wait for its flush (a durable commit returns only once its commit record is flushed, so it
// never leaves any). The WAL writer flushes in the background, rarely here, so most of the 80
// checks must find unflushed WAL; durable claims leave none (0 of 80). (pg_stat_wal's flush
// count cannot tell: a backend reports its counts only every few seconds.) Each is one
// statement outside a transaction, a round trip instead of three. The settle stays durable.
func TestClaimsDoNotWaitForTheWALFlush(t *testing.T) {
	pgtest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The WAL writer's background flush of asynchronous commits, every 200 ms by default, at
	// its longest instead, so the count below is the claims' own.
	srv, err := pgtest.StartDurable(ctx, "wal_writer_delay = 10000", "shared_preload_libraries = 'pg_stat_statements'")
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
	// unflushed reports whether WAL has been written that is not flushed yet.
	unflushed := func() bool {
		var u bool
		if err := db.QueryRowContext(ctx, `SELECT pg_current_wal_flush_lsn() < pg_current_wal_insert_lsn()`).Scan(&u); err != nil {
			t.Fatal(err)
		}
		return u
	}
	if _, err := db.ExecContext(ctx, `CREATE EXTENSION pg_stat_statements`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `SELECT pg_stat_statements_reset()`); err != nil {
		t.Fatal(err)
	}
	var msgs []delivery.Message
	tokens := map[string]int64{}
	claims, ledgerClaims := 0, 0
	for range cycles {
		m, err := q.Claim(ctx, 1)
		if err != nil || len(m) != 1 {
			t.Fatalf("claim: %v, %d rows", err, len(m))
		}
		if unflushed() {
			claims++
		}
		c, err := ledger.Claim(ctx, time.Now(), time.Minute, []delivery.Key{{EventID: m[0].EventID, Handler: "h"}})
		if err != nil || len(c) != 1 || c[0].State != delivery.Acquired {
			t.Fatalf("ledger claim: %v, %+v", err, c)
		}
		tokens[m[0].EventID] = c[0].Token
		if unflushed() {
			ledgerClaims++
		}
		msgs = append(msgs, m...)
	}
	if claims < cycles/2 || ledgerClaims < cycles/2 {
		t.Fatalf("unflushed WAL after %d of %d claims and %d of %d ledger claims, want at least half of each: they waited for their flushes",
			claims, cycles, ledgerClaims, cycles)
	}
	// One round trip each: the claims ran outside transactions, but for the first, which
	// sweeps for dead letters in its own.
	var begins int
	if err := db.QueryRowContext(ctx, `SELECT coalesce(sum(s.calls), 0) FROM pg_stat_statements s
		JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = current_database() AND lower(s.query) = 'begin'`).Scan(&begins); err != nil {
		t.Fatal(err)
	}
	if begins > 1 {
		t.Errorf("%d claims and ledger claims began %d transactions, want 1 (the first claim's sweep): each should be one statement", 2*cycles, begins)
	}
	// The settle of acked rows is one statement too, and durable: what it wrote is flushed when
	// it returns (but for the odd background write, autovacuum's, after it).
	settles := 0
	for _, m := range msgs {
		if err := q.Settle(ctx, []delivery.Result{{Msg: m, Kind: delivery.Ack, Marks: []delivery.Mark{{Key: delivery.Key{EventID: m.EventID, Handler: "h"}, Token: tokens[m.EventID], Done: true}}}}); err != nil {
			t.Fatal(err)
		}
		if unflushed() {
			settles++
		}
	}
	if settles > cycles/4 {
		t.Errorf("unflushed WAL after %d of %d settles, want at most a quarter: they did not wait for their flushes", settles, cycles)
	}
	if err := db.QueryRowContext(ctx, `SELECT coalesce(sum(s.calls), 0) FROM pg_stat_statements s
		JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = current_database() AND lower(s.query) = 'begin'`).Scan(&begins); err != nil {
		t.Fatal(err)
	}
	if begins > 1 {
		t.Errorf("%d settles of acked rows began %d transactions beside the first claim's, want none", cycles, begins-1)
	}
	var done, ledgerDone int
	if err := db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM event_queue WHERE status = 'done'),
		(SELECT count(*) FROM processed_events WHERE status = 'done')`).Scan(&done, &ledgerDone); err != nil {
		t.Fatal(err)
	}
	if done != cycles || ledgerDone != cycles {
		t.Errorf("after the settles %d rows and %d ledger rows done, want %d of each", done, ledgerDone, cycles)
	}
}
