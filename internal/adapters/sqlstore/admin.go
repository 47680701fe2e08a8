package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/outbox"
)

// Operator tooling over the outbox: what `worker events …` shows and changes. Every change is a
// single transaction conditioned on the row's status, so it is safe while workers run.

// Stats counts rows by status and by type, and the age of the oldest due pending row.
func (s *Store) Stats(ctx context.Context) (outbox.QueueStats, error) {
	return outbox.ReadStats(ctx, s.read, s.now)
}

// ListEvents returns up to limit rows with the status (all if empty) and type (all if empty),
// newest first, without payloads.
func (s *Store) ListEvents(ctx context.Context, status, eventType string, limit int) ([]outbox.EventRow, error) {
	var rows []outbox.QueueRow
	if err := s.read.SelectContext(ctx, &rows, `SELECT `+outbox.EventColumns+`, '' AS payload
		FROM event_queue WHERE (? = '' OR status = ?) AND (? = '' OR event_type = ?) ORDER BY id DESC LIMIT CAST(? AS INTEGER)`,
		status, status, eventType, eventType, limit); err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	var out []outbox.EventRow
	for _, r := range rows {
		out = append(out, r.EventRow())
	}
	return out, nil
}

// ShowEvent returns one row, with payload, and its ledger entries. id is an event id or a row id.
func (s *Store) ShowEvent(ctx context.Context, id string) (outbox.EventRow, []outbox.LedgerEntry, error) {
	where, arg := eventWhere(id)
	var row outbox.QueueRow
	err := s.read.GetContext(ctx, &row, `SELECT `+outbox.EventColumns+`, payload FROM event_queue WHERE `+where, arg)
	if errors.Is(err, sql.ErrNoRows) {
		return outbox.EventRow{}, nil, fmt.Errorf("%w: %s", outbox.ErrEventNotFound, id)
	}
	if err != nil {
		return outbox.EventRow{}, nil, fmt.Errorf("show event: %w", err)
	}
	r := row.EventRow()
	if r.EventID == "" {
		return r, nil, nil
	}
	var rows []outbox.LedgerRow
	if err := s.read.SelectContext(ctx, &rows, `SELECT handler, status, started_at, processed_at, takeovers
		FROM processed_events WHERE event_id = ? ORDER BY handler`, r.EventID); err != nil {
		return r, nil, fmt.Errorf("show event ledger: %w", err)
	}
	var ledger []outbox.LedgerEntry
	for _, l := range rows {
		ledger = append(ledger, l.Entry())
	}
	return r, ledger, nil
}

// RetryEvents puts dead-lettered rows back to pending, due now, with attempts reset, and wakes
// the claimers (Dialect.Wake). The event
// id is kept, so the ledger still skips handlers that already succeeded. ids select rows (event
// ids or row ids); with none, every dead-lettered row of eventType (all types if empty) is
// retried. It returns the rows retried; ids that are not dead-lettered are left alone.
func (s *Store) RetryEvents(ctx context.Context, ids []string, eventType string) (int64, error) {
	const set = `UPDATE event_queue SET status = 'pending', attempts = 0, next_attempt_at = ?, claimed_at = NULL
		WHERE status = 'dead_lettered' AND `
	now := sqlrow.Millis(s.now())
	query, args := set+`(? = '' OR event_type = ?)`, []any{now, eventType, eventType}
	if len(ids) > 0 {
		var rowIDs []int64
		var eventIDs []string
		for _, id := range ids {
			if n, err := strconv.ParseInt(id, 10, 64); err == nil {
				rowIDs = append(rowIDs, n)
			} else {
				eventIDs = append(eventIDs, strings.ToLower(id))
			}
		}
		var match []string
		args = []any{now}
		if len(rowIDs) > 0 {
			match, args = append(match, "id IN (?)"), append(args, rowIDs)
		}
		if len(eventIDs) > 0 {
			match, args = append(match, "event_id IN (?)"), append(args, eventIDs)
		}
		var err error
		if query, args, err = sqlx.In(set+"("+strings.Join(match, " OR ")+")", args...); err != nil {
			return 0, fmt.Errorf("retry events: %w", err)
		}
	}
	var n int64
	err := s.writeAlone(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		return s.d.Wake(ctx, tx.tx)
	})
	if err != nil {
		return 0, fmt.Errorf("retry events: %w", err)
	}
	return n, nil
}

// PurgeDone deletes done rows created more than olderThan before now and returns how many.
//
// Where the engine reuses ids (Dialect.ReusesIDs) it never deletes the row with the highest id.
// SQLite's event_queue.id is a plain INTEGER PRIMARY KEY (0104 dropped AUTOINCREMENT for its
// write cost), so SQLite hands out max(id)+1: keeping the newest row keeps ids increasing for
// ever, and a row id names one row for good (`worker events show <row id>`, the server's
// moviesdiary_events_enqueued_total, which counts rows above the last id it saw). Purging
// everything would let the next insert reuse id 1. PostgreSQL's identity never reuses an id;
// there the rows are taken FOR UPDATE SKIP LOCKED, so no chunk waits for a worker's row.
//
// It deletes in chunks so no transaction holds the write lock, or many row locks, for long.
func (s *Store) PurgeDone(ctx context.Context, now time.Time, olderThan time.Duration) (int64, error) {
	cutoff := sqlrow.Millis(now.Add(-olderThan))
	keep := ""
	if s.d.ReusesIDs() {
		keep = ` AND id < (SELECT max(id) FROM event_queue)`
	}
	var total int64
	for {
		var n int64
		err := s.writeAlone(ctx, func(tx *Tx) error {
			res, err := tx.ExecContext(ctx, `DELETE FROM event_queue WHERE id IN (
				SELECT id FROM event_queue WHERE status = 'done' AND created_at < ?`+keep+` LIMIT 5000`+
				s.locking("FOR UPDATE SKIP LOCKED")+`)`, cutoff)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		if err != nil {
			return total, fmt.Errorf("purge events: %w", err)
		}
		total += n
		if n == 0 {
			return total, nil
		}
	}
}

// eventWhere matches a row by row id (digits) or event id.
func eventWhere(id string) (string, any) {
	if n, err := strconv.ParseInt(id, 10, 64); err == nil {
		return "id = ?", n
	}
	return "event_id = ?", strings.ToLower(id)
}
