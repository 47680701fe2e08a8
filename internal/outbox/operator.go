package outbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// The outbox as operators see it (`worker events …`): the same shapes whichever store holds it,
// so the command and its JSON output do not depend on the database.

// ErrEventNotFound is returned when no outbox row has the given id.
var ErrEventNotFound = errors.New("event not found")

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

// DeadFilter selects dead-lettered rows for the operators' retry and discard: the rows named by
// IDs (event ids or row ids), or, with no IDs, every dead-lettered row of EventType (all types
// when empty) created more than OlderThan ago (any age when zero).
type DeadFilter struct {
	IDs       []string
	EventType string
	OlderThan time.Duration
}

// ReadStats counts event_queue rows by status and by type, and the age of the oldest pending
// row, reading through q: the same SQL on either store.
func ReadStats(ctx context.Context, q sqlx.QueryerContext, now func() time.Time) (QueueStats, error) {
	st := QueueStats{ByStatus: map[string]int{}, ByType: map[string]map[string]int{}}
	var counts []struct {
		EventType string `db:"event_type"`
		Status    string `db:"status"`
		N         int    `db:"n"`
	}
	if err := sqlx.SelectContext(ctx, q, &counts, `SELECT event_type, status, count(*) AS n FROM event_queue GROUP BY event_type, status`); err != nil {
		return st, fmt.Errorf("queue stats: %w", err)
	}
	for _, c := range counts {
		st.ByStatus[c.Status] += c.N
		if st.ByType[c.EventType] == nil {
			st.ByType[c.EventType] = map[string]int{}
		}
		st.ByType[c.EventType][c.Status] = c.N
	}
	var oldest sql.NullInt64
	if err := sqlx.GetContext(ctx, q, &oldest, `SELECT min(created_at) FROM event_queue WHERE status = 'pending'`); err != nil {
		return st, fmt.Errorf("queue stats: %w", err)
	}
	if oldest.Valid {
		age := now().Sub(time.UnixMilli(oldest.Int64))
		sec := age.Seconds()
		st.OldestPendingAge, st.OldestPendingSec = &age, &sec
	}
	return st, nil
}

// CountByStatus is the number of event_queue rows in each status.
func CountByStatus(ctx context.Context, q sqlx.QueryerContext) (map[string]int, error) {
	var rows []struct {
		Status string `db:"status"`
		N      int    `db:"n"`
	}
	if err := sqlx.SelectContext(ctx, q, &rows, `SELECT status, count(*) AS n FROM event_queue GROUP BY status`); err != nil {
		return nil, fmt.Errorf("count events: %w", err)
	}
	counts := map[string]int{}
	for _, r := range rows {
		counts[r.Status] = r.N
	}
	return counts, nil
}

// OldestPending is the age at now() of the oldest pending row, read through q; ok is false
// when none is pending.
func OldestPending(ctx context.Context, q sqlx.QueryerContext, now func() time.Time) (age time.Duration, ok bool, err error) {
	var oldest sql.NullInt64
	if err := sqlx.GetContext(ctx, q, &oldest, `SELECT min(created_at) FROM event_queue WHERE status = 'pending'`); err != nil {
		return 0, false, fmt.Errorf("oldest pending event: %w", err)
	}
	if !oldest.Valid {
		return 0, false, nil
	}
	return max(0, now().Sub(time.UnixMilli(oldest.Int64))), true, nil
}
