package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/domain"
)

// Commits that enqueued events wake the queues with a pg_notify sent after the commit, on a pool
// connection of its own, never inside the writing transaction: PostgreSQL serialises the commits
// of notifying transactions on one cluster-wide lock held until their WAL flush, which made every
// producer wait on every other (docs/adr/0008-postgresql-wakes-after-the-commit.md). A rolled-back
// write wakes nobody (it never reaches the notify); wake-ups arriving while one is being sent
// coalesce into the next; and a lost one costs at most the queues' poll (NotifyPollDefault).

// enqueue writes events with the store's insert and marks tx to wake the queues once it commits.
func (s *Store) enqueue(ctx context.Context, tx *sqlx.Tx, now time.Time, events ...domain.Event) error {
	if err := s.insert(ctx, tx, now, events...); err != nil {
		return err
	}
	if len(events) > 0 {
		s.woke.Store(tx, struct{}{})
	}
	return nil
}

// startWaker starts the goroutine that sends the wake-ups, over a connection of its own (a pool
// the producers keep busy would make a wake-up wait for one of them); Close stops it.
func (s *Store) startWaker() {
	s.kick = make(chan struct{}, 1)
	ctx, stop := context.WithCancel(context.Background())
	s.wakeStop = stop
	s.bg.Go(func() {
		var conn *pgx.Conn
		defer func() {
			if conn != nil {
				closing, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				conn.Close(closing)
			}
		}()
		for {
			select {
			case <-ctx.Done():
				return
			case <-s.kick:
			}
			if conn == nil || conn.IsClosed() {
				c, err := pgx.Connect(ctx, s.url)
				if err != nil {
					continue // the queues' poll finds the rows; the next commit tries again
				}
				// A notification carries no data to keep: its commit need not wait for a flush.
				if _, err := c.Exec(ctx, "SET synchronous_commit TO OFF"); err != nil {
					c.Close(ctx)
					continue
				}
				conn = c
			}
			if _, err := conn.Exec(ctx, "SELECT pg_notify('"+notifyChannel+"', '')"); err != nil && ctx.Err() == nil {
				conn.Close(ctx) // reconnect at the next wake-up; the poll covers this one
				conn = nil
			}
		}
	})
}

// wake asks for one notification; one already asked for covers this commit too.
func (s *Store) wake() {
	s.wakes.Add(1)
	select {
	case s.kick <- struct{}{}:
	default:
	}
}
