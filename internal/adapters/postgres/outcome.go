package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/delivery"
)

// Record writes a broker-fed consumer's settle in one transaction: the ledger marks, and each
// event's outcome in its outbox row (docs/adr/0002-outbox-outcomes.md), with the SQLite store's
// rules. A row the consumer does not find (a legacy stream message, a foreign writer's row
// without an event id) is left alone.
//
//   - Ack: the row is done; attempts becomes the failed deliveries, those of this copy included.
//   - DeadLetter: the row is dead-lettered with the error and the delivery count.
//   - Return: the row goes back to pending at At, for the relay to publish again without
//     spending an attempt.
//   - Retry: the broker still delivers it; the row's re-relay horizon moves to At (never
//     earlier) and last_error keeps the failure.
//
// Each also moves relays past the delivered copy's round, so the next publish of the row gets a
// message id the duplicate window has not seen. A hand-back recorded before the relay's handoff
// also ends the relay's claim, whose handoff then changes nothing.
//
// The round is the copy's claim token: once a later round is handed off, a late DeadLetter,
// Return or Retry of an earlier copy changes nothing; an Ack still counts. Done rows never
// change.
//
// It reports, per outcome, whether it was superseded: the row is done, or a later relay round
// owns it, so this copy's outcome changed nothing.
func (l *Ledger) Record(ctx context.Context, now time.Time, marks []delivery.Mark, outcomes []delivery.RowOutcome) ([]bool, error) {
	superseded := make([]bool, len(outcomes))
	if len(marks) == 0 && len(outcomes) == 0 {
		return superseded, nil
	}
	err := l.s.write(ctx, func(tx *sqlx.Tx) error {
		clear(superseded)
		if err := settleLedger(ctx, tx, now, marks); err != nil {
			return err
		}
		return recordOutcomes(ctx, tx, outcomes, superseded)
	})
	return superseded, err
}

// recordOutcomes writes outcomes and sets superseded[i] for each one that changed nothing
// because its row is done or a later round owns it.
func recordOutcomes(ctx context.Context, tx *sqlx.Tx, outcomes []delivery.RowOutcome, superseded []bool) error {
	var doneIDs []string
	var doneFailed, doneRound []int64
	returned := false
	for i, o := range outcomes {
		if o.EventID == "" {
			continue
		}
		var err error
		var res sql.Result
		switch o.Kind {
		case delivery.Ack:
			doneIDs = append(doneIDs, o.EventID)
			doneFailed, doneRound = append(doneFailed, int64(max(o.Deliveries-1, 0))), append(doneRound, int64(o.Round+1))
		case delivery.DeadLetter:
			res, err = tx.ExecContext(ctx, `UPDATE event_queue SET status = 'dead_lettered', claimed_at = NULL,
				attempts = attempts + $1, last_error = $2, relays = greatest(relays, $3)
				WHERE event_id = $4 AND status <> 'done' AND relays <= $3`,
				max(o.Deliveries, 1), errorText(o.Err), o.Round+1, o.EventID)
		case delivery.Return:
			res, err = tx.ExecContext(ctx, `UPDATE event_queue SET status = 'pending', claimed_at = NULL, next_attempt_at = $1,
				relays = greatest(relays, $2) WHERE event_id = $3 AND status IN ('relayed', 'processing') AND relays <= $2`,
				sqlrow.Millis(o.At), o.Round+1, o.EventID)
			if n, _ := rowsAffected(res); n > 0 {
				returned = true
			}
		case delivery.Retry:
			var last sql.NullString // a defer is no failure: it keeps the last one's error
			if o.Err != nil {
				last = sql.NullString{String: errorText(o.Err), Valid: true}
			}
			res, err = tx.ExecContext(ctx, `UPDATE event_queue SET next_attempt_at = greatest(next_attempt_at, $1),
				last_error = coalesce($2, last_error), relays = greatest(relays, $3)
				WHERE event_id = $4 AND status = 'relayed' AND relays <= $3`,
				sqlrow.Millis(o.At), last, o.Round+1, o.EventID)
		default:
			err = fmt.Errorf("unknown outcome %v", o.Kind)
		}
		if err == nil && o.Kind != delivery.Ack {
			err = checkSuperseded(ctx, tx, res, o, &superseded[i])
		}
		if err != nil {
			return fmt.Errorf("record outcome of %s: %w", o.EventID, err)
		}
	}
	if len(doneIDs) > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE event_queue e SET status = 'done', claimed_at = NULL, last_error = NULL,
				attempts = e.attempts + v.failed, relays = greatest(e.relays, v.round)
			FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS v (event_id, failed, round)
			WHERE e.event_id = v.event_id AND e.status <> 'done'`, doneIDs, doneFailed, doneRound); err != nil {
			return fmt.Errorf("record outcomes: mark done: %w", err)
		}
	}
	// Rows handed back are for the relay to publish again: wake it at the commit.
	if returned {
		if _, err := tx.ExecContext(ctx, `SELECT pg_notify('`+notifyChannel+`', '')`); err != nil {
			return fmt.Errorf("record outcomes: notify: %w", err)
		}
	}
	return nil
}

// checkSuperseded sets *superseded when o's update (res) changed no row because the row is done
// or a later relay round owns it; no row at all (a legacy message) is not superseded.
func checkSuperseded(ctx context.Context, tx *sqlx.Tx, res sql.Result, o delivery.RowOutcome, superseded *bool) error {
	if n, err := rowsAffected(res); err != nil || n > 0 {
		return err
	}
	err := tx.QueryRowContext(ctx, `SELECT status = 'done' OR relays > $1 FROM event_queue WHERE event_id = $2`,
		o.Round+1, o.EventID).Scan(superseded)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	return err
}

func rowsAffected(res sql.Result) (int64, error) {
	if res == nil {
		return 0, nil
	}
	return res.RowsAffected()
}
