package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"time"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/outbox"
)

// SettleOutcomes writes a broker-fed consumer's settle in one transaction (the ledger's own
// Settle writes the marks alone): the ledger marks, and each event's outcome in its outbox row
// (docs/adr/0002-outbox-outcomes.md). A row the consumer does not find (a legacy stream
// message, a foreign writer's row without an event id) is left alone.
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
func (l *Ledger) SettleOutcomes(ctx context.Context, now time.Time, marks []delivery.Mark, outcomes []delivery.RowOutcome) ([]bool, error) {
	superseded := make([]bool, len(outcomes))
	if len(marks) == 0 && len(outcomes) == 0 {
		return superseded, nil
	}
	err := l.s.writeAlone(ctx, func(tx *Tx) error {
		clear(superseded)
		incomplete, err := l.s.settleLedger(ctx, tx, now, marks)
		if err != nil {
			return err
		}
		return l.s.recordOutcomes(ctx, tx, outcomes, incomplete, superseded)
	})
	return superseded, err
}

// recordOutcomes executes what the Lifecycle decides for each outcome and sets superseded[i] for
// each one that changed nothing because its row is done or a later round owns it, or, for an
// ack, because its event is incomplete (a handler's done mark did not land: the delivery that
// took its claim over decides). Acks, the common outcome, go in multi-row statements with the
// Lifecycle's guard.
func (s *Store) recordOutcomes(ctx context.Context, tx *Tx, outcomes []delivery.RowOutcome, incomplete map[string]bool, superseded []bool) error {
	life := outbox.Lifecycle{ErrorText: ErrorText}
	var done [][]any // event id, failed deliveries, next round
	returned := false
	for i, o := range outcomes {
		if o.Kind == delivery.Ack && incomplete[o.EventID] {
			superseded[i] = true
			continue
		}
		u, ok, err := life.Record(o)
		if err == nil && ok && u.Step == outbox.StepDone {
			done = append(done, []any{o.EventID, int64(u.Set.AddAttempts), int64(u.Set.RelaysAtLeast)})
			continue
		}
		if err == nil && ok {
			var applied bool
			applied, err = u.Exec(ctx, tx, "event_id", o.EventID, &superseded[i])
			returned = returned || (applied && u.Step == outbox.StepReturn)
		}
		if err != nil {
			return fmt.Errorf("record outcome of %s: %w", o.EventID, err)
		}
	}
	for part := range slices.Chunk(done, chunk) {
		from, args := s.d.Values("v", []string{"text", "bigint", "bigint"}, part)
		if _, err := tx.ExecContext(ctx, `UPDATE event_queue SET status = 'done', claimed_at = NULL, last_error = NULL,
				attempts = attempts + v.column2, relays = `+s.d.Greatest()+`(relays, v.column3)
			FROM `+from+`
			WHERE event_queue.event_id = v.column1 AND `+s.d.NoIndex("event_queue.status")+` <> 'done'`, args...); err != nil {
			return fmt.Errorf("record outcomes: mark done: %w", err)
		}
	}
	// Rows handed back are for the relay to publish again: wake it.
	if returned {
		if err := s.d.Wake(ctx, tx.tx); err != nil {
			return fmt.Errorf("record outcomes: wake the relay: %w", err)
		}
	}
	return nil
}
