package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/outbox"
)

// Ledger is the processed_events table: one row per (event, handler), claimed in_progress before
// the handler runs and marked done after. started_at (Unix ms) is the claim's owner token.
type Ledger struct {
	s      *Store
	claims Claimer
}

// NewLedger returns the store's processed-event ledger, claiming through claims.
func (s *Store) NewLedger(claims Claimer) *Ledger { return &Ledger{s: s, claims: claims} }

var _ delivery.Ledger = (*Ledger)(nil)

// Claim claims every key in one transaction: a missing row is inserted in_progress, an
// in_progress row older than lease is taken over, and anything else is reported as it stands.
func (l *Ledger) Claim(ctx context.Context, now time.Time, lease time.Duration, keys []delivery.Key) ([]delivery.Claim, error) {
	token := sqlrow.Millis(now)
	if alone, ok := l.claims.(AloneClaimer); ok {
		acquired, standing, err := alone.ClaimLedgerAlone(ctx, keys, token, token-lease.Milliseconds())
		if err != nil {
			return nil, fmt.Errorf("claim ledger: %w", err)
		}
		return ledgerClaims(keys, token, lease, acquired, standing, func(k delivery.Key) (outbox.Entry, error) {
			return outbox.Entry{}, fmt.Errorf("claim ledger: no answer for %s/%s", k.EventID, k.Handler)
		})
	}
	var claims []delivery.Claim
	err := l.s.writeAlone(ctx, func(tx *Tx) error {
		acquired, standing, err := l.claims.ClaimLedger(ctx, tx, keys, token, token-lease.Milliseconds())
		if err != nil {
			return fmt.Errorf("claim ledger: %w", err)
		}
		claims, err = ledgerClaims(keys, token, lease, acquired, standing, func(k delivery.Key) (e outbox.Entry, err error) {
			if err := tx.QueryRowxContext(ctx, `SELECT status, started_at, takeovers FROM processed_events
				WHERE event_id = ? AND handler = ?`, k.EventID, k.Handler).Scan(&e.Status, &e.StartedAt, &e.Takeovers); err != nil {
				return e, fmt.Errorf("read ledger: %w", err)
			}
			return e, nil
		})
		return err
	})
	return claims, err
}

// ledgerClaims answers keys from a Claimer's ledger claim: acquired keys are the claimant's,
// standing ones are answered as outbox.Stands says, and read gives the row of a key in neither.
func ledgerClaims(keys []delivery.Key, token int64, lease time.Duration, acquired map[delivery.Key]int,
	standing map[delivery.Key]outbox.Entry, read func(delivery.Key) (outbox.Entry, error)) ([]delivery.Claim, error) {
	return outbox.Claims(keys, token, lease, func(k delivery.Key) (delivery.Claim, error) {
		if takeovers, ok := acquired[k]; ok {
			return delivery.Claim{State: delivery.Acquired, Token: token, TookOver: takeovers > 0}, nil
		}
		e, ok := standing[k]
		if !ok {
			var err error
			if e, err = read(k); err != nil {
				return delivery.Claim{}, err
			}
		}
		// Neither inserted nor taken over: the row stands, done or held, as outbox.Stands answers.
		return outbox.Stands(e, lease), nil
	})
}

// Renew moves the claims still carrying their tokens to now, in one transaction.
func (l *Ledger) Renew(ctx context.Context, now time.Time, claims []delivery.Mark) ([]bool, error) {
	held := make([]bool, len(claims))
	if len(claims) == 0 {
		return held, nil
	}
	kept := map[delivery.Key]bool{}
	err := l.s.writeAlone(ctx, func(tx *Tx) error {
		clear(kept)
		for part := range slices.Chunk(claims, chunk) {
			from, args := l.s.d.Values("v", []string{"text", "text", "bigint"}, markRows(part))
			rows, err := tx.QueryContext(ctx, `UPDATE processed_events SET started_at = ? FROM `+from+`
				WHERE processed_events.event_id = v.column1 AND processed_events.handler = v.column2
					AND processed_events.started_at = v.column3 AND processed_events.status = 'in_progress'
				RETURNING processed_events.event_id, processed_events.handler`, append([]any{sqlrow.Millis(now)}, args...)...)
			if err != nil {
				return err
			}
			for rows.Next() {
				var k delivery.Key
				if err := rows.Scan(&k.EventID, &k.Handler); err != nil {
					rows.Close()
					return err
				}
				kept[k] = true
			}
			if err := rows.Close(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("renew ledger claims: %w", err)
	}
	for i, c := range claims {
		held[i] = kept[c.Key]
	}
	return held, nil
}

// Settle writes marks in one transaction (for sources whose message outcome lives elsewhere,
// such as JetStream).
func (l *Ledger) Settle(ctx context.Context, now time.Time, marks []delivery.Mark) error {
	if len(marks) == 0 {
		return nil
	}
	return l.s.writeAlone(ctx, func(tx *Tx) error {
		_, err := l.s.settleLedger(ctx, tx, now, marks)
		return err
	})
}

// settleLedger marks each claim done or releases it, only while the row still carries the
// claim's token: a delivery whose claim was taken over touches nothing. The rows are written in
// key order, so two transactions settling the same rows (on PostgreSQL) cannot deadlock.
//
// It returns the events with a done mark that did not land and whose row is not done either:
// the claim was taken over while its handler ran (the delivery outlived the ledger lease), so
// the ledger cannot say the handler is done, and the delivery must not complete the event
// (docs/adr/0009-an-ack-completes-only-what-the-ledger-has-done.md).
func (s *Store) settleLedger(ctx context.Context, tx *Tx, now time.Time, marks []delivery.Mark) (map[string]bool, error) {
	if len(marks) == 0 {
		return nil, nil
	}
	marks = slices.Clone(marks)
	slices.SortFunc(marks, func(a, b delivery.Mark) int {
		return cmp.Or(cmp.Compare(a.EventID, b.EventID), cmp.Compare(a.Handler, b.Handler))
	})
	var done, released []delivery.Mark
	for _, m := range marks {
		if m.Done {
			done = append(done, m)
		} else {
			released = append(released, m)
		}
	}
	for part := range slices.Chunk(released, chunk) {
		from, args := s.d.Values("v", []string{"text", "text", "bigint"}, markRows(part))
		if _, err := tx.ExecContext(ctx, `DELETE FROM processed_events WHERE status = 'in_progress'
			AND (event_id, handler, started_at) IN (SELECT v.column1, v.column2, v.column3 FROM `+from+`)`, args...); err != nil {
			return nil, fmt.Errorf("release ledger claims: %w", err)
		}
	}
	landed := make(map[delivery.Key]bool, len(done))
	for part := range slices.Chunk(done, chunk) {
		from, args := s.d.Values("v", []string{"text", "text", "bigint"}, markRows(part))
		rows, err := tx.QueryContext(ctx, `UPDATE processed_events SET status = 'done', processed_at = ? FROM `+from+`
			WHERE processed_events.event_id = v.column1 AND processed_events.handler = v.column2
				AND processed_events.started_at = v.column3 AND processed_events.status = 'in_progress'
			RETURNING processed_events.event_id, processed_events.handler`,
			append([]any{sqlrow.Millis(now)}, args...)...)
		if err != nil {
			return nil, fmt.Errorf("mark ledger done: %w", err)
		}
		if err := scanKeys(rows, landed); err != nil {
			return nil, fmt.Errorf("mark ledger done: %w", err)
		}
	}
	missed := slices.DeleteFunc(done, func(m delivery.Mark) bool { return landed[m.Key] })
	if len(missed) == 0 {
		return nil, nil
	}
	// A mark that did not land is harmless when another delivery finished the handler (the row
	// is done); otherwise that delivery holds or released the claim, and decides.
	open := map[delivery.Key]bool{}
	for part := range slices.Chunk(missed, chunk) {
		keys := make([][]any, len(part))
		for i, m := range part {
			keys[i] = []any{m.EventID, m.Handler}
		}
		from, args := s.d.Values("v", []string{"text", "text"}, keys)
		rows, err := tx.QueryContext(ctx, `SELECT v.column1, v.column2 FROM `+from+`
			WHERE NOT EXISTS (SELECT 1 FROM processed_events p
				WHERE p.event_id = v.column1 AND p.handler = v.column2 AND p.status = 'done')`, args...)
		if err != nil {
			return nil, fmt.Errorf("read ledger marks that did not land: %w", err)
		}
		if err := scanKeys(rows, open); err != nil {
			return nil, fmt.Errorf("read ledger marks that did not land: %w", err)
		}
	}
	incomplete := map[string]bool{}
	for k := range open {
		incomplete[k.EventID] = true
	}
	return incomplete, nil
}

// scanKeys adds the (event_id, handler) rows to keys and closes them.
func scanKeys(rows *sql.Rows, keys map[delivery.Key]bool) error {
	defer rows.Close()
	for rows.Next() {
		var k delivery.Key
		if err := rows.Scan(&k.EventID, &k.Handler); err != nil {
			return err
		}
		keys[k] = true
	}
	return rows.Err()
}

// markRows is marks as (event_id, handler, token) rows, for Dialect.Values.
func markRows(marks []delivery.Mark) [][]any {
	rows := make([][]any, len(marks))
	for i, m := range marks {
		rows[i] = []any{m.EventID, m.Handler, m.Token}
	}
	return rows
}

// Prune deletes ledger rows whose claim began more than keep ago (30 days in production),
// returning how many it removed.
func (l *Ledger) Prune(ctx context.Context, now time.Time, keep time.Duration) (int64, error) {
	var n int64
	err := l.s.writeAlone(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM processed_events WHERE started_at < ?`, sqlrow.Millis(now.Add(-keep)))
		if err != nil {
			return fmt.Errorf("prune ledger: %w", err)
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}
