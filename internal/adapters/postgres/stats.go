package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"moviesdiary/internal/outbox"
)

// QueueCounts is the number of event_queue rows in each status.
func (s *Store) QueueCounts(ctx context.Context) (map[string]int, error) {
	return outbox.CountByStatus(ctx, s.db)
}

// OldestPending is the age of the oldest pending row; ok is false when none is pending.
func (s *Store) OldestPending(ctx context.Context) (age time.Duration, ok bool, err error) {
	return outbox.OldestPending(ctx, s.db, s.now)
}

// EventsSince counts the committed outbox rows by event type whose inserting transaction lies in
// [cursor, horizon), where horizon is the xmin of the query's snapshot, and returns horizon as the
// next cursor (pass 0 first). Ids cannot be the cursor here: a sequence hands them out before
// commit, so a row with a lower id can commit after a higher one was counted. Every transaction
// below the xmin has finished, so the window's rows are final: each committed row is counted
// exactly once over a sequence of calls, a rolled-back one never. A row is counted once every
// writing transaction older than its own has ended, so a long-open one (in any database of the
// cluster; readers hold no transaction id and do not count) delays counting but loses nothing.
func (s *Store) EventsSince(ctx context.Context, cursor int64) (map[string]int, int64, error) {
	var rows []struct {
		Horizon   int64          `db:"horizon"`
		EventType sql.NullString `db:"event_type"`
		N         int            `db:"n"`
	}
	// One statement, so the horizon and the rows read come from the same snapshot. xid8 has no
	// cast from bigint, hence the text casts (its values, epoch << 32 | xid, fit an int64).
	if err := s.db.SelectContext(ctx, &rows, `WITH h AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS x)
		SELECT h.x::text::bigint AS horizon, q.event_type, coalesce(q.n, 0) AS n
		FROM h LEFT JOIN LATERAL (
			SELECT event_type, count(*) AS n FROM event_queue
			WHERE enqueued_xact >= $1::bigint::text::xid8 AND enqueued_xact < h.x GROUP BY event_type) q ON true`,
		cursor); err != nil {
		return nil, cursor, fmt.Errorf("count new events: %w", err)
	}
	counts, next := map[string]int{}, cursor
	for _, r := range rows {
		next = max(next, r.Horizon)
		if r.EventType.Valid {
			counts[r.EventType.String] = r.N
		}
	}
	return counts, next, nil
}
