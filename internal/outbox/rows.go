package outbox

import (
	"database/sql"
	"time"
)

// The rows of event_queue and processed_events as both SQL stores' operator reads scan them
// (times are Unix milliseconds), and their mapping to what operators see.

// QueueRow is an event_queue row as the operators' reads select it.
type QueueRow struct {
	ID            int64          `db:"id"`
	EventID       sql.NullString `db:"event_id"`
	EventType     string         `db:"event_type"`
	Status        string         `db:"status"`
	Attempts      int            `db:"attempts"`
	CreatedAt     int64          `db:"created_at"`
	NextAttemptAt int64          `db:"next_attempt_at"`
	ClaimedAt     sql.NullInt64  `db:"claimed_at"`
	LastError     sql.NullString `db:"last_error"`
	Payload       string         `db:"payload"`
}

// EventColumns are QueueRow's columns but payload, which a read selects (or blanks) itself.
const EventColumns = `id, event_id, event_type, status, attempts, created_at, next_attempt_at, claimed_at, last_error`

// EventRow maps the row to what operators see.
func (r QueueRow) EventRow() EventRow {
	return EventRow{
		ID: r.ID, EventID: r.EventID.String, EventType: r.EventType, Status: r.Status, Attempts: r.Attempts,
		CreatedAt: time.UnixMilli(r.CreatedAt).UTC(), NextAttemptAt: time.UnixMilli(r.NextAttemptAt).UTC(),
		ClaimedAt: utcMillis(r.ClaimedAt), LastError: r.LastError.String, Payload: r.Payload,
	}
}

// LedgerRow is a processed_events row.
type LedgerRow struct {
	Handler     string        `db:"handler"`
	Status      string        `db:"status"`
	StartedAt   int64         `db:"started_at"`
	ProcessedAt sql.NullInt64 `db:"processed_at"`
	Takeovers   int           `db:"takeovers"`
}

// Entry maps the row to what operators see.
func (r LedgerRow) Entry() LedgerEntry {
	return LedgerEntry{Handler: r.Handler, Status: r.Status, StartedAt: time.UnixMilli(r.StartedAt).UTC(),
		ProcessedAt: utcMillis(r.ProcessedAt), Takeovers: r.Takeovers}
}

// utcMillis is a nullable Unix-ms column as a time, nil when NULL.
func utcMillis(ms sql.NullInt64) *time.Time {
	if !ms.Valid {
		return nil
	}
	t := time.UnixMilli(ms.Int64).UTC()
	return &t
}
