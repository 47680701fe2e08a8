package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/delivery"
)

// Record writes a broker-fed consumer's settle in one transaction: the ledger marks, and each
// event's outcome in its outbox row (docs/adr/0002-outbox-outcomes.md). A row the consumer does
// not find (a legacy stream message, a foreign writer's row without an event id) is left alone.
//
//   - Ack: the row is done; attempts becomes the failed deliveries, those of this copy included.
//   - DeadLetter: the row is dead-lettered with the error and the delivery count, visible to
//     `worker events list` and retried by `worker events retry` like any other dead letter.
//   - Return: the row goes back to pending at At, for the relay to publish again without
//     spending an attempt.
//   - Retry: the broker still delivers it; the row's re-relay horizon moves to At (never
//     earlier) and last_error keeps the failure.
//
// Each also moves relays past the delivered copy's round, so the next publish of the row (a
// retry, a hand-back, a re-relay) gets a message id the duplicate window has not seen, even
// when the consumer records before the relay has recorded its handoff. A hand-back recorded
// that early also ends the relay's claim, whose handoff then changes nothing.
//
// The round is the copy's claim token: once the relay has handed off a later round (the re-relay
// horizon passed: the copy was lost, or its consumer stalled), a late DeadLetter, Return or
// Retry of the earlier copy changes nothing, and the later copy's consumer alone decides. An Ack
// still counts (every handler is done, whoever ran them). Done rows never change: an outcome that
// arrives after another copy's is a duplicate's.
//
// It reports, per outcome, whether it was superseded: the row is done, or a later relay round
// owns it, so this copy's outcome changed nothing (the consumer then neither counts a dead
// letter nor retries the copy).
func (l *Ledger) Record(ctx context.Context, now time.Time, marks []delivery.Mark, outcomes []delivery.RowOutcome) ([]bool, error) {
	superseded := make([]bool, len(outcomes))
	if len(marks) == 0 && len(outcomes) == 0 {
		return superseded, nil
	}
	err := l.s.writeAlone(ctx, func(tx *sqlx.Tx) error {
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
	var done []any // event id, failed deliveries, next round
	stmts := map[delivery.Kind]*sql.Stmt{}
	defer func() {
		for _, st := range stmts {
			st.Close()
		}
	}()
	exec := func(k delivery.Kind, query string, args ...any) (sql.Result, error) {
		st, ok := stmts[k]
		if !ok {
			var err error
			if st, err = tx.PrepareContext(ctx, query); err != nil {
				return nil, err
			}
			stmts[k] = st
		}
		return st.ExecContext(ctx, args...)
	}
	for i, o := range outcomes {
		if o.EventID == "" {
			continue
		}
		var err error
		var res sql.Result
		switch o.Kind {
		case delivery.Ack:
			done = append(done, o.EventID, max(o.Deliveries-1, 0), o.Round+1)
		case delivery.DeadLetter:
			res, err = exec(o.Kind, `UPDATE event_queue SET status = 'dead_lettered', claimed_at = NULL,
				attempts = attempts + ?1, last_error = ?2, relays = max(relays, ?3)
				WHERE event_id = ?4 AND status <> 'done' AND relays <= ?3`,
				max(o.Deliveries, 1), errorText(o.Err), o.Round+1, o.EventID)
		case delivery.Return:
			res, err = exec(o.Kind, `UPDATE event_queue SET status = 'pending', claimed_at = NULL, next_attempt_at = ?1, relays = max(relays, ?2)
				WHERE event_id = ?3 AND status IN ('relayed', 'processing') AND relays <= ?2`, sqlrow.Millis(o.At), o.Round+1, o.EventID)
		case delivery.Retry:
			var last sql.NullString // a defer is no failure: it keeps the last one's error
			if o.Err != nil {
				last = sql.NullString{String: errorText(o.Err), Valid: true}
			}
			res, err = exec(o.Kind, `UPDATE event_queue SET next_attempt_at = max(next_attempt_at, ?1), last_error = coalesce(?2, last_error),
				relays = max(relays, ?3) WHERE event_id = ?4 AND status = 'relayed' AND relays <= ?3`, sqlrow.Millis(o.At), last, o.Round+1, o.EventID)
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
	for start := 0; start < len(done); start += 3 * claimChunk {
		chunk := done[start:min(start+3*claimChunk, len(done))]
		q := `UPDATE event_queue SET status = 'done', claimed_at = NULL, last_error = NULL, attempts = attempts + v.column2,
				relays = max(relays, v.column3)
			FROM (VALUES (?, ?, ?)` + strings.Repeat(", (?, ?, ?)", len(chunk)/3-1) + `) AS v
			WHERE event_queue.event_id = v.column1 AND +event_queue.status <> 'done'`
		if _, err := tx.ExecContext(ctx, q, chunk...); err != nil {
			return fmt.Errorf("record outcomes: mark done: %w", err)
		}
	}
	return nil
}

// checkSuperseded sets *superseded when o's update (res) changed no row because the row is done
// or a later relay round owns it; no row at all (a legacy message, a foreign writer's) is not
// superseded.
func checkSuperseded(ctx context.Context, tx *sqlx.Tx, res sql.Result, o delivery.RowOutcome, superseded *bool) error {
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return err
	}
	err := tx.QueryRowContext(ctx, `SELECT status = 'done' OR relays > ? FROM event_queue WHERE event_id = ?`,
		o.Round+1, o.EventID).Scan(superseded)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	return err
}
