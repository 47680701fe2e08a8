package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// QueueCounts is the number of event_queue rows in each status.
func (s *Store) QueueCounts(ctx context.Context) (map[string]int, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT status, count(*) FROM event_queue GROUP BY status`)
	if err != nil {
		return nil, fmt.Errorf("count events: %w", err)
	}
	defer rows.Close()
	counts := map[string]int{}
	for rows.Next() {
		var status string
		var n int
		if err := rows.Scan(&status, &n); err != nil {
			return nil, fmt.Errorf("count events: %w", err)
		}
		counts[status] = n
	}
	return counts, rows.Err()
}

// OldestPending is the age of the oldest pending row; ok is false when none is pending.
func (s *Store) OldestPending(ctx context.Context) (age time.Duration, ok bool, err error) {
	var oldest sql.NullInt64
	if err := s.read.QueryRowContext(ctx, `SELECT min(created_at) FROM event_queue WHERE status = 'pending'`).Scan(&oldest); err != nil {
		return 0, false, fmt.Errorf("oldest pending event: %w", err)
	}
	if !oldest.Valid {
		return 0, false, nil
	}
	return max(0, s.now().Sub(time.UnixMilli(oldest.Int64))), true, nil
}

// EventsSince counts outbox rows with an id above afterID by event type and returns the highest
// id counted. Writers are serialised, so ids commit in order and a caller that keeps the last id
// counts every committed event exactly once, reading only the new rows.
func (s *Store) EventsSince(ctx context.Context, afterID int64) (map[string]int, int64, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT event_type, count(*), max(id) FROM event_queue WHERE id > ? GROUP BY event_type`, afterID)
	if err != nil {
		return nil, afterID, fmt.Errorf("count new events: %w", err)
	}
	defer rows.Close()
	counts, last := map[string]int{}, afterID
	for rows.Next() {
		var typ string
		var n int
		var maxID int64
		if err := rows.Scan(&typ, &n, &maxID); err != nil {
			return nil, afterID, fmt.Errorf("count new events: %w", err)
		}
		counts[typ] = n
		last = max(last, maxID)
	}
	return counts, last, rows.Err()
}
