package postgres

import (
	"context"
	"time"

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

// startWaker starts the goroutine that sends the wake-ups; Close stops it.
func (s *Store) startWaker() {
	s.kick = make(chan struct{}, 1)
	ctx, stop := context.WithCancel(context.Background())
	s.wakeStop = stop
	s.bg.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-s.kick:
			}
			if _, err := s.db.ExecContext(ctx, `SELECT pg_notify($1, '')`, notifyChannel); err != nil && ctx.Err() == nil {
				// The queues' poll finds the rows; nothing is lost.
				continue
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
