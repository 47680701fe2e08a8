package postgres

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
	if err := s.db.SelectContext(ctx, &rows, `SELECT status, count(*) AS n FROM event_queue GROUP BY status`); err != nil {
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
	if err := s.db.GetContext(ctx, &oldest, `SELECT min(created_at) FROM event_queue WHERE status = 'pending'`); err != nil {
		return 0, false, fmt.Errorf("oldest pending event: %w", err)
	}
	if !oldest.Valid {
		return 0, false, nil
	}
	return max(0, s.now().Sub(time.UnixMilli(oldest.Int64))), true, nil
}

// (The SQLite store's EventsSince has no twin here yet: it relies on ids committing in order,
// which holds for SQLite's single writer but not for PostgreSQL's concurrent ones, where a row
// with a lower id can commit after one with a higher id.)
