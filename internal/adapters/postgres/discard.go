package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/outbox"
)

// DeadFilter selects dead-lettered rows for the operators' retry and discard.
type DeadFilter = outbox.DeadFilter

// where is the filter as a condition on event_queue with its arguments, numbered from $1.
func deadWhere(f DeadFilter, now time.Time) (string, []any) {
	cond, args := []string{"status = 'dead_lettered'"}, []any{}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if len(f.IDs) > 0 {
		rowIDs, eventIDs := []int64{}, []string{}
		for _, id := range f.IDs {
			if n, err := strconv.ParseInt(id, 10, 64); err == nil {
				rowIDs = append(rowIDs, n)
			} else {
				eventIDs = append(eventIDs, strings.ToLower(id))
			}
		}
		cond = append(cond, "(id = ANY("+arg(rowIDs)+") OR event_id = ANY("+arg(eventIDs)+"))")
	}
	if f.EventType != "" {
		cond = append(cond, "event_type = "+arg(f.EventType))
	}
	if f.OlderThan > 0 {
		cond = append(cond, "created_at < "+arg(sqlrow.Millis(now.Add(-f.OlderThan))))
	}
	return strings.Join(cond, " AND "), args
}

// DeadLettered returns the dead-lettered rows the filter selects, oldest first, without payloads:
// what a retry or discard would touch (their --dry-run).
func (s *Store) DeadLettered(ctx context.Context, f DeadFilter) ([]EventRow, error) {
	where, args := deadWhere(f, s.now())
	var rows []outbox.QueueRow
	if err := s.db.SelectContext(ctx, &rows, `SELECT `+outbox.EventColumns+`, '' AS payload FROM event_queue WHERE `+where+` ORDER BY id`,
		args...); err != nil {
		return nil, fmt.Errorf("dead-lettered events: %w", err)
	}
	out := make([]EventRow, len(rows))
	for i, r := range rows {
		out[i] = r.EventRow()
	}
	return out, nil
}

// DiscardEvents deletes the dead-lettered rows the filter selects and returns how many: poison
// events an operator has given up on. Only dead-lettered rows go, in one transaction, so it is
// safe while workers run; their ledger rows stay and are pruned with the rest after 30 days.
func (s *Store) DiscardEvents(ctx context.Context, f DeadFilter) (int64, error) {
	where, args := deadWhere(f, s.now())
	var n int64
	err := s.write(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM event_queue WHERE `+where, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("discard events: %w", err)
	}
	return n, nil
}

// CountPurgeable counts the done rows PurgeDone(now, olderThan) would delete (purge --dry-run).
func (s *Store) CountPurgeable(ctx context.Context, now time.Time, olderThan time.Duration) (int64, error) {
	var n int64
	if err := s.db.GetContext(ctx, &n, `SELECT count(*) FROM event_queue WHERE status = 'done' AND created_at < $1`,
		sqlrow.Millis(now.Add(-olderThan))); err != nil {
		return 0, fmt.Errorf("count purgeable events: %w", err)
	}
	return n, nil
}
