package outbox

import (
	"database/sql"
	"log/slog"
	"time"
)

// ClaimLeaseDefault is how long a claimed row belongs to its claimer; a row still processing
// after that (its claimer died) is claimed again.
const ClaimLeaseDefault = 600 * time.Second

// QueueConfig tunes an SQL store's outbox queue (sqlstore.Queue); zero fields take
// the defaults.
type QueueConfig struct {
	MaxAttempts int           // deliveries before a row is dead-lettered (default 5)
	ClaimLease  time.Duration // default ClaimLeaseDefault
	Logger      *slog.Logger
	// OnDeadLetter, if set, is called for each row the queue dead-letters on its own (its
	// deliveries abandoned by dead workers, or lost by the broker, MaxAttempts times), for the
	// dead-letter counter; dead letters a delivery decided are counted by the engine.
	OnDeadLetter func()
}

// MaxErrorLen bounds last_error so a panic's stack cannot bloat the table.
const MaxErrorLen = 8 << 10

// DeadRow is a row a queue's Claim dead-lettered.
type DeadRow struct {
	ID        int64          `db:"id"`
	EventID   sql.NullString `db:"event_id"`
	EventType string         `db:"event_type"`
	Attempts  int            `db:"attempts"`
}

// RowFields are the fields naming a row in a delivery log line: its event id, and for a foreign
// writer's row, which has none, its row id (what `worker events show <row id>` finds it by), as
// the delivery engine's lines do.
func RowFields(eventID string, row int64) []any {
	if eventID == "" {
		return []any{"event_id", eventID, "row_id", row}
	}
	return []any{"event_id", eventID}
}
