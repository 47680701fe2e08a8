package postgres

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

// Operator tooling over the outbox: what `worker events …` shows and changes, as on SQLite.
// Every change is a single transaction conditioned on the row's status, so it is safe while
// workers run.

// ErrEventNotFound is returned when no row has the given id.
var ErrEventNotFound = outbox.ErrEventNotFound

// QueueStats summarises event_queue.
type QueueStats = outbox.QueueStats

// EventRow is one outbox row as operators see it.
type EventRow = outbox.EventRow

// LedgerEntry is one processed_events row.
type LedgerEntry = outbox.LedgerEntry

// Stats counts rows by status and by type, and the age of the oldest pending row.
func (s *Store) Stats(ctx context.Context) (QueueStats, error) {
	return outbox.ReadStats(ctx, s.db, s.now)
}

// ListEvents returns up to limit rows with the status (all if empty) and type (all if empty),
// newest first, without payloads.
func (s *Store) ListEvents(ctx context.Context, status, eventType string, limit int) ([]EventRow, error) {
	var rows []outbox.QueueRow
	if err := s.db.SelectContext(ctx, &rows, `SELECT `+outbox.EventColumns+`, '' AS payload
		FROM event_queue WHERE ($1 = '' OR status = $1) AND ($2 = '' OR event_type = $2) ORDER BY id DESC LIMIT $3`,
		status, eventType, limit); err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	var out []EventRow
	for _, r := range rows {
		out = append(out, r.EventRow())
	}
	return out, nil
}

// ShowEvent returns one row, with payload, and its ledger entries. id is an event id or a row id.
func (s *Store) ShowEvent(ctx context.Context, id string) (EventRow, []LedgerEntry, error) {
	where, arg := eventWhere(id)
	var row outbox.QueueRow
	err := s.db.GetContext(ctx, &row, `SELECT `+outbox.EventColumns+`, payload FROM event_queue WHERE `+where, arg)
	if errors.Is(err, sql.ErrNoRows) {
		return EventRow{}, nil, fmt.Errorf("%w: %s", ErrEventNotFound, id)
	}
	if err != nil {
		return EventRow{}, nil, fmt.Errorf("show event: %w", err)
	}
	r := row.EventRow()
	if r.EventID == "" {
		return r, nil, nil
	}
	var rows []outbox.LedgerRow
	if err := s.db.SelectContext(ctx, &rows, `SELECT handler, status, started_at, processed_at, takeovers
		FROM processed_events WHERE event_id = $1 ORDER BY handler`, r.EventID); err != nil {
		return r, nil, fmt.Errorf("show event ledger: %w", err)
	}
	var ledger []LedgerEntry
	for _, l := range rows {
		ledger = append(ledger, l.Entry())
	}
	return r, ledger, nil
}

// RetryEvents puts dead-lettered rows back to pending, due now, with attempts reset, and wakes
// the claimers. The event id is kept, so the ledger still skips handlers that already succeeded.
// ids select rows (event ids or row ids); with none, every dead-lettered row of eventType (all
// types if empty) is retried. It returns the rows retried; ids that are not dead-lettered are
// left alone.
func (s *Store) RetryEvents(ctx context.Context, ids []string, eventType string) (int64, error) {
	const set = `UPDATE event_queue SET status = 'pending', attempts = 0, next_attempt_at = $1, claimed_at = NULL
		WHERE status = 'dead_lettered' AND `
	query, args := set+`($2 = '' OR event_type = $2)`, []any{sqlrow.Millis(s.now()), eventType}
	if len(ids) > 0 {
		rowIDs, eventIDs := []int64{}, []string{}
		for _, id := range ids {
			if n, err := strconv.ParseInt(id, 10, 64); err == nil {
				rowIDs = append(rowIDs, n)
			} else {
				eventIDs = append(eventIDs, strings.ToLower(id))
			}
		}
		query, args = set+`(id = ANY($2) OR event_id = ANY($3))`, []any{args[0], rowIDs, eventIDs}
	}
	var n int64
	err := s.write(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		_, err = tx.ExecContext(ctx, `SELECT pg_notify('`+notifyChannel+`', '')`)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("retry events: %w", err)
	}
	return n, nil
}

// PurgeDone deletes done rows created more than olderThan before now and returns how many, in
// chunks so no transaction holds many row locks. (PostgreSQL's identity never reuses an id, so
// unlike SQLite the newest row need not be kept.)
func (s *Store) PurgeDone(ctx context.Context, now time.Time, olderThan time.Duration) (int64, error) {
	cutoff := sqlrow.Millis(now.Add(-olderThan))
	var total int64
	for {
		res, err := s.db.ExecContext(ctx, `DELETE FROM event_queue WHERE id IN (
			SELECT id FROM event_queue WHERE status = 'done' AND created_at < $1 LIMIT 5000 FOR UPDATE SKIP LOCKED)`, cutoff)
		if err != nil {
			return total, fmt.Errorf("purge events: %w", err)
		}
		n, err := res.RowsAffected()
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
		return "id = $1", n
	}
	return "event_id = $1", strings.ToLower(id)
}
