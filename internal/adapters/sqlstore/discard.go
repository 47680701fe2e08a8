package sqlstore

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

// where is the filter as a condition on event_queue with its arguments (for sqlx.In).
func deadWhere(f outbox.DeadFilter, now time.Time) (string, []any) {
	cond, args := []string{"status = 'dead_lettered'"}, []any{}
	if len(f.IDs) > 0 {
		var rowIDs []int64
		var eventIDs []string
		for _, id := range f.IDs {
			if n, err := strconv.ParseInt(id, 10, 64); err == nil {
				rowIDs = append(rowIDs, n)
			} else {
				eventIDs = append(eventIDs, strings.ToLower(id))
			}
		}
		var match []string
		if len(rowIDs) > 0 {
			match, args = append(match, "id IN (?)"), append(args, rowIDs)
		}
		if len(eventIDs) > 0 {
			match, args = append(match, "event_id IN (?)"), append(args, eventIDs)
		}
		cond = append(cond, "("+strings.Join(match, " OR ")+")")
	}
	if f.EventType != "" {
		cond, args = append(cond, "event_type = ?"), append(args, f.EventType)
	}
	if f.OlderThan > 0 {
		cond, args = append(cond, "created_at < ?"), append(args, sqlrow.Millis(now.Add(-f.OlderThan)))
	}
	return strings.Join(cond, " AND "), args
}

// DeadLettered returns the dead-lettered rows the filter selects, oldest first, without payloads:
// what a retry or discard would touch (their --dry-run).
func (s *Store) DeadLettered(ctx context.Context, f outbox.DeadFilter) ([]outbox.EventRow, error) {
	where, args := deadWhere(f, s.now())
	query, args, err := sqlx.In(`SELECT `+outbox.EventColumns+`, '' AS payload FROM event_queue WHERE `+where+` ORDER BY id`, args...)
	if err != nil {
		return nil, fmt.Errorf("dead-lettered events: %w", err)
	}
	var rows []outbox.QueueRow
	if err := s.read.SelectContext(ctx, &rows, query, args...); err != nil {
		return nil, fmt.Errorf("dead-lettered events: %w", err)
	}
	out := make([]outbox.EventRow, len(rows))
	for i, r := range rows {
		out[i] = r.EventRow()
	}
	return out, nil
}

// DiscardEvents deletes the dead-lettered rows the filter selects and returns how many: poison
// events an operator has given up on, which would otherwise hold the dead-letter gauge (and any
// alert on it) up for ever. Only dead-lettered rows go, in one transaction, so it is safe while
// workers run; their ledger rows stay and are pruned with the rest after 30 days.
func (s *Store) DiscardEvents(ctx context.Context, f outbox.DeadFilter) (int64, error) {
	where, args := deadWhere(f, s.now())
	query, args, err := sqlx.In(`DELETE FROM event_queue WHERE `+where, args...)
	if err != nil {
		return 0, fmt.Errorf("discard events: %w", err)
	}
	var n int64
	err = s.writeAlone(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, query, args...)
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
	if err := s.read.GetContext(ctx, &n, `SELECT count(*) FROM event_queue WHERE status = 'done' AND created_at < ?`,
		sqlrow.Millis(now.Add(-olderThan))); err != nil {
		return 0, fmt.Errorf("count purgeable events: %w", err)
	}
	return n, nil
}
