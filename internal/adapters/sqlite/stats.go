package sqlite

import (
	"context"
	"fmt"
	"time"

	"moviesdiary/internal/outbox"
)

// QueueCounts is the number of event_queue rows in each status.
func (s *Store) QueueCounts(ctx context.Context) (map[string]int, error) {
	return outbox.CountByStatus(ctx, s.read)
}

// OldestPending is the age of the oldest pending row; ok is false when none is pending.
func (s *Store) OldestPending(ctx context.Context) (age time.Duration, ok bool, err error) {
	return outbox.OldestPending(ctx, s.read, s.now)
}

// EventsSince counts outbox rows with an id above afterID by event type and returns the highest
// id counted: the metrics cursor is a row id here. Writers are serialised, so ids commit in order
// and a caller that keeps the last id counts every committed event exactly once, reading only the
// new rows. (PostgreSQL's ids do not commit in order: its cursor is a transaction id.)
func (s *Store) EventsSince(ctx context.Context, afterID int64) (map[string]int, int64, error) {
	var rows []struct {
		EventType string `db:"event_type"`
		N         int    `db:"n"`
		MaxID     int64  `db:"max_id"`
	}
	if err := s.read.SelectContext(ctx, &rows, `SELECT event_type, count(*) AS n, max(id) AS max_id
		FROM event_queue WHERE id > ? GROUP BY event_type`, afterID); err != nil {
		return nil, afterID, fmt.Errorf("count new events: %w", err)
	}
	counts, last := map[string]int{}, afterID
	for _, r := range rows {
		counts[r.EventType] = r.N
		last = max(last, r.MaxID)
	}
	return counts, last, nil
}
