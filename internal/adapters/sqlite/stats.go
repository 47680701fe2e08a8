package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// QueueCounts is the number of event_queue rows in each status.
func (s *Store) QueueCounts(ctx context.Context) (map[string]int, error) {
	var rows []struct {
		Status string `db:"status"`
		N      int    `db:"n"`
	}
	if err := s.read.SelectContext(ctx, &rows, `SELECT status, count(*) AS n FROM event_queue GROUP BY status`); err != nil {
		return nil, fmt.Errorf("count events: %w", err)
	}
	counts := map[string]int{}
	for _, r := range rows {
		counts[r.Status] = r.N
	}
	return counts, nil
}

// OldestPending is the age of the oldest pending row; ok is false when none is pending.
func (s *Store) OldestPending(ctx context.Context) (age time.Duration, ok bool, err error) {
	var oldest sql.NullInt64
	if err := s.read.GetContext(ctx, &oldest, `SELECT min(created_at) FROM event_queue WHERE status = 'pending'`); err != nil {
		return 0, false, fmt.Errorf("oldest pending event: %w", err)
	}
	if !oldest.Valid {
		return 0, false, nil
	}
	return max(0, s.now().Sub(time.UnixMilli(oldest.Int64))), true, nil
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
