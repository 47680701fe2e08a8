package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/domain"
)

// The original's outbox rows still pending (or stranded in processing) when it stopped each
// get the fate of their event type (domain.LegacyEventFate: delivered, settled as done saying
// why, or dead-lettered), here in SQL over the whole table.
//
// TestLegacyDeliveredTypesHaveHandlers checks every delivered type against our handlers' types.

// legacyDelivered are the original's event types our worker handles as its worker did.
// FollowAccepted is delivered only when outgoing; migration 0110 labels the carried rows.
var legacyDelivered = domain.LegacyDeliveredTypes()

// legacySettled are the original's event types settled as done when pending, with why
// (FollowAccepted when incoming).
var legacySettled = domain.LegacySettledTypes()

// The reasons a settled or dead-lettered row's last_error gives.
const (
	legacyEffected   = domain.LegacyEffected
	legacyUnconsumed = domain.LegacyUnconsumed
	legacyUnknown    = domain.LegacyUnknown
)

// settledEvents counts the original's open rows an adoption settled, per event type and fate.
type settledEvents struct {
	eventType, status, reason string
	rows                      int64
}

// settleLegacyEvents gives every open row of the original's outbox its fate. It runs in the
// conversion's transaction after the migrations (0110 labels FollowAccepted's direction) and
// before the adoption enqueues anything of its own.
func settleLegacyEvents(ctx context.Context, tx *sqlx.Tx) ([]settledEvents, error) {
	const open = `status IN ('pending', 'processing')`
	var out []settledEvents
	types := slices.Sorted(maps.Keys(legacySettled))
	for _, t := range types {
		where := `event_type = ?`
		if t == "FollowAccepted" {
			where += ` AND json_extract(payload, '$.data.direction') IS NOT 'outgoing'`
		}
		res, err := tx.ExecContext(ctx, `UPDATE event_queue SET status = 'done', last_error = ?, claimed_at = NULL
			WHERE `+open+` AND `+where, legacySettled[t], t)
		if err != nil {
			return nil, fmt.Errorf("settle the original's %s events: %w", t, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return nil, err
		} else if n > 0 {
			out = append(out, settledEvents{t, "done", legacySettled[t], n})
		}
	}
	known, err := json.Marshal(append(slices.Clone(legacyDelivered), types...))
	if err != nil {
		return nil, err
	}
	const unknown = `event_type NOT IN (SELECT value FROM json_each(?))`
	var rows []struct {
		Type string `db:"event_type"`
		N    int64  `db:"n"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT event_type, count(*) AS n FROM event_queue WHERE `+open+` AND `+unknown+`
		GROUP BY event_type ORDER BY event_type`, string(known)); err != nil {
		return nil, fmt.Errorf("read the original's open events: %w", err)
	}
	if len(rows) == 0 {
		return out, nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE event_queue SET status = 'dead_lettered', last_error = ?, claimed_at = NULL
		WHERE `+open+` AND `+unknown, legacyUnknown, string(known)); err != nil {
		return nil, fmt.Errorf("dead-letter the original's unknown events: %w", err)
	}
	for _, r := range rows {
		out = append(out, settledEvents{r.Type, "dead_lettered", legacyUnknown, r.N})
	}
	return out, nil
}
