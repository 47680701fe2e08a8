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
