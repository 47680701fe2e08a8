package sqlite

import (
	"context"
	"fmt"
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
