package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// Operator tooling over the outbox: what `worker events …` shows and changes. Every change is a
// single transaction conditioned on the row's status, so it is safe while workers run.

// ErrEventNotFound is returned when no row has the given id.
var ErrEventNotFound = errors.New("sqlite: event not found")

// QueueStats summarises event_queue.
type QueueStats struct {
	ByStatus         map[string]int            `json:"by_status"`
	ByType           map[string]map[string]int `json:"by_type"`
	OldestPendingAge *time.Duration            `json:"-"`
	OldestPendingSec *float64                  `json:"oldest_pending_age_seconds"`
}

// EventRow is one outbox row as operators see it.
type EventRow struct {
	ID            int64      `json:"id"`
	EventID       string     `json:"event_id,omitempty"`
	EventType     string     `json:"event_type"`
	Status        string     `json:"status"`
	Attempts      int        `json:"attempts"`
	CreatedAt     time.Time  `json:"created_at"`
	NextAttemptAt time.Time  `json:"next_attempt_at"`
	ClaimedAt     *time.Time `json:"claimed_at,omitempty"`
	LastError     string     `json:"last_error,omitempty"`
	Payload       string     `json:"payload,omitempty"`
}

// LedgerEntry is one processed_events row.
type LedgerEntry struct {
	Handler     string     `json:"handler"`
	Status      string     `json:"status"`
	StartedAt   time.Time  `json:"started_at"`
	ProcessedAt *time.Time `json:"processed_at,omitempty"`
	Takeovers   int        `json:"takeovers"`
}

// Stats counts rows by status and by type, and the age of the oldest due pending row.
func (s *Store) Stats(ctx context.Context) (QueueStats, error) {
	st := QueueStats{ByStatus: map[string]int{}, ByType: map[string]map[string]int{}}
	rows, err := s.read.QueryContext(ctx, `SELECT event_type, status, count(*) FROM event_queue GROUP BY event_type, status`)
	if err != nil {
		return st, fmt.Errorf("queue stats: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var typ, status string
		var n int
		if err := rows.Scan(&typ, &status, &n); err != nil {
			return st, fmt.Errorf("queue stats: %w", err)
		}
		st.ByStatus[status] += n
		if st.ByType[typ] == nil {
			st.ByType[typ] = map[string]int{}
		}
		st.ByType[typ][status] = n
	}
	if err := rows.Err(); err != nil {
		return st, fmt.Errorf("queue stats: %w", err)
	}
	var oldest sql.NullInt64
	if err := s.read.QueryRowContext(ctx, `SELECT min(created_at) FROM event_queue WHERE status = 'pending'`).Scan(&oldest); err != nil {
		return st, fmt.Errorf("queue stats: %w", err)
	}
	if oldest.Valid {
		age := s.now().Sub(time.UnixMilli(oldest.Int64))
		sec := age.Seconds()
		st.OldestPendingAge, st.OldestPendingSec = &age, &sec
	}
	return st, nil
}

// ListEvents returns up to limit rows with the status (all if empty) and type (all if empty),
// newest first, without payloads.
func (s *Store) ListEvents(ctx context.Context, status, eventType string, limit int) ([]EventRow, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT id, event_id, event_type, status, attempts, created_at, next_attempt_at, claimed_at, last_error, ''
		FROM event_queue WHERE (?1 = '' OR status = ?1) AND (?2 = '' OR event_type = ?2) ORDER BY id DESC LIMIT CAST(?3 AS INTEGER)`,
		status, eventType, limit)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	defer rows.Close()
	var out []EventRow
	for rows.Next() {
		r, err := scanEventRow(rows)
		if err != nil {
			return nil, fmt.Errorf("list events: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// ShowEvent returns one row, with payload, and its ledger entries. id is an event id or a row id.
func (s *Store) ShowEvent(ctx context.Context, id string) (EventRow, []LedgerEntry, error) {
	where, arg := eventWhere(id)
	row := s.read.QueryRowContext(ctx, `SELECT id, event_id, event_type, status, attempts, created_at, next_attempt_at, claimed_at, last_error, payload
		FROM event_queue WHERE `+where, arg)
	r, err := scanEventRow(row)
	if errors.Is(err, sql.ErrNoRows) {
		return r, nil, fmt.Errorf("%w: %s", ErrEventNotFound, id)
	}
	if err != nil {
		return r, nil, fmt.Errorf("show event: %w", err)
	}
	if r.EventID == "" {
		return r, nil, nil
	}
	rows, err := s.read.QueryContext(ctx, `SELECT handler, status, started_at, processed_at, takeovers FROM processed_events WHERE event_id = ? ORDER BY handler`, r.EventID)
	if err != nil {
		return r, nil, fmt.Errorf("show event ledger: %w", err)
	}
	defer rows.Close()
	var ledger []LedgerEntry
	for rows.Next() {
		var e LedgerEntry
		var started int64
		var processed sql.NullInt64
		if err := rows.Scan(&e.Handler, &e.Status, &started, &processed, &e.Takeovers); err != nil {
			return r, nil, fmt.Errorf("show event ledger: %w", err)
		}
		e.StartedAt = time.UnixMilli(started).UTC()
		if processed.Valid {
			t := time.UnixMilli(processed.Int64).UTC()
			e.ProcessedAt = &t
		}
		ledger = append(ledger, e)
	}
	return r, ledger, rows.Err()
}

// RetryEvents puts dead-lettered rows back to pending, due now, with attempts reset. The event
// id is kept, so the ledger still skips handlers that already succeeded. ids select rows (event
// ids or row ids); with none, every dead-lettered row of eventType (all types if empty) is
// retried. It returns the rows retried; ids that are not dead-lettered are left alone.
func (s *Store) RetryEvents(ctx context.Context, ids []string, eventType string) (int64, error) {
	now := millis(s.now())
	var n int64
	err := s.writeAlone(ctx, func(tx *sqlx.Tx) error {
		const set = `UPDATE event_queue SET status = 'pending', attempts = 0, next_attempt_at = ?, claimed_at = NULL
			WHERE status = 'dead_lettered' AND `
		if len(ids) == 0 {
			res, err := tx.ExecContext(ctx, set+`(? = '' OR event_type = ?)`, now, eventType, eventType)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		}
		for _, id := range ids {
			where, arg := eventWhere(id)
			res, err := tx.ExecContext(ctx, set+where, now, arg)
			if err != nil {
				return err
			}
			k, err := res.RowsAffected()
			if err != nil {
				return err
			}
			n += k
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("retry events: %w", err)
	}
	return n, nil
}

// PurgeDone deletes done rows created more than olderThan before now and returns how many. It
// deletes in chunks so the write lock is never held for long on a live database.
func (s *Store) PurgeDone(ctx context.Context, now time.Time, olderThan time.Duration) (int64, error) {
	cutoff := millis(now.Add(-olderThan))
	var total int64
	for {
		var n int64
		err := s.writeAlone(ctx, func(tx *sqlx.Tx) error {
			res, err := tx.ExecContext(ctx, `DELETE FROM event_queue WHERE id IN (
				SELECT id FROM event_queue WHERE status = 'done' AND created_at < ? LIMIT 5000)`, cutoff)
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

type scanner interface{ Scan(dest ...any) error }

func scanEventRow(sc scanner) (EventRow, error) {
	var (
		r                EventRow
		eventID, lastErr sql.NullString
		created, next    int64
		claimed          sql.NullInt64
	)
	if err := sc.Scan(&r.ID, &eventID, &r.EventType, &r.Status, &r.Attempts, &created, &next, &claimed, &lastErr, &r.Payload); err != nil {
		return r, err
	}
	r.EventID, r.LastError = eventID.String, lastErr.String
	r.CreatedAt, r.NextAttemptAt = time.UnixMilli(created).UTC(), time.UnixMilli(next).UTC()
	if claimed.Valid {
		t := time.UnixMilli(claimed.Int64).UTC()
		r.ClaimedAt = &t
	}
	return r, nil
}
