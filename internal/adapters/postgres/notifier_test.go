package postgres

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlstore"
	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// TestNotifyWakesAWaitingClaimer: a queue waiting for work wakes when another connection commits
// events, long before its poll would: the enqueue's pg_notify reaches the LISTEN connection, and
// does again after that connection was killed and the notifier reconnected.
func TestNotifyWakesAWaitingClaimer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := migratedURL(t)
	const poll = time.Hour
	worker, err := Open(ctx, url, WithNotifyPoll(poll))
	if err != nil {
		t.Fatal(err)
	}
	defer worker.Close()
	server, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	q := worker.Queue(outbox.QueueConfig{Logger: slog.New(slog.DiscardHandler)})
	// Listening: the connection counts itself once.
	deliverytest.Eventually(t, 20*time.Second, "the notifier listening", func() bool { return worker.notify.current() > 0 })
	for range 2 {
		wakes(t, q, server)
	}
	// The LISTEN connection dies (a PostgreSQL restart, a proxy dropping it): the notifier
	// reconnects, counting the reconnection as a wake-up, and commits wake the claimer again.
	before := worker.notify.current()
	var killed int
	if err := server.db.GetContext(ctx, &killed, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND query = 'LISTEN `+notifyChannel+`'`); err != nil || killed != 1 {
		t.Fatalf("terminated %d LISTEN connections (%v), want the notifier's one", killed, err)
	}
	deliverytest.Eventually(t, 20*time.Second, "the notifier back", func() bool { return worker.notify.current() > before })
	wakes(t, q, server)
}

// wakes checks that a claimer that found nothing and waits wakes on server's next commit.
func wakes(t *testing.T, q *sqlstore.Queue, server *Store) {
	t.Helper()
	ctx := context.Background()
	if msgs, err := q.Claim(ctx, 10); err != nil || len(msgs) != 0 {
		t.Fatalf("claim before the commit: %d, %v", len(msgs), err)
	}
	woke := make(chan struct{})
	go func() {
		q.Wait(ctx)
		close(woke)
	}()
	if err := server.Enqueue(ctx, domain.SearchReindexRequested{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-woke:
	case <-time.After(20 * time.Second):
		t.Fatal("the waiting claimer did not wake on the commit (its poll is an hour)")
	}
	if msgs, err := q.Claim(ctx, 10); err != nil || len(msgs) != 1 {
		t.Fatalf("claim after the wake-up: %d, %v", len(msgs), err)
	}
}

// TestARolledBackWriteWakesNobody: a transaction that enqueued events and then failed asks for
// no wake-up (the notification is sent only after a commit, docs/adr/0008); the same write
// committed asks for one.
func TestARolledBackWriteWakesNobody(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, migratedURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	write := func(fail error) error {
		return s.write(ctx, func(tx *sqlx.Tx) error {
			if err := s.enqueue(ctx, tx, time.Now(), domain.SearchReindexRequested{}); err != nil {
				return err
			}
			return fail
		})
	}
	before := s.wakes.Load()
	if err := write(errors.New("the caller's check failed")); err == nil {
		t.Fatal("the failing write committed")
	}
	if n := s.wakes.Load() - before; n != 0 {
		t.Fatalf("a rolled-back write asked for %d wake-ups", n)
	}
	if err := write(nil); err != nil {
		t.Fatal(err)
	}
	if n := s.wakes.Load() - before; n != 1 {
		t.Fatalf("a committed write asked for %d wake-ups, want 1", n)
	}
}
