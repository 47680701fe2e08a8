package postgres

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/delivery"
)

// Ledger is the processed_events table: one row per (event, handler), claimed in_progress before
// the handler runs and marked done after. started_at (Unix ms) is the claim's owner token.
type Ledger struct{ s *Store }

// Ledger returns the store's processed-event ledger.
func (s *Store) Ledger() *Ledger { return &Ledger{s: s} }

var _ delivery.Ledger = (*Ledger)(nil)

// claimRounds bounds how often Claim tries a key again whose row vanished between its insert and
// its read (its holder released it meanwhile, which a single SQLite writer never lets happen).
const claimRounds = 3

// Claim claims every key in one transaction: a missing row is inserted in_progress, an
// in_progress row older than lease is taken over, and anything else is reported as it stands.
func (l *Ledger) Claim(ctx context.Context, now time.Time, lease time.Duration, keys []delivery.Key) ([]delivery.Claim, error) {
	var claims []delivery.Claim
	err := l.s.write(ctx, func(tx *sqlx.Tx) error {
		var err error
		claims, err = claimLedger(ctx, tx, now, lease, keys)
		return err
	})
	return claims, err
}

// found is a ledger row as a claim found it.
type found struct {
	acquired  bool
	takeovers int
	done      bool
	startedAt int64
}

func claimLedger(ctx context.Context, tx *sqlx.Tx, now time.Time, lease time.Duration, keys []delivery.Key) ([]delivery.Claim, error) {
	token := sqlrow.Millis(now)
	stale := token - lease.Milliseconds()
	// Distinct keys in one order: an upsert may not touch a row twice, and transactions that lock
	// rows in the same order cannot deadlock.
	todo := slices.Clone(keys)
	slices.SortFunc(todo, func(a, b delivery.Key) int {
		return cmp.Or(cmp.Compare(a.EventID, b.EventID), cmp.Compare(a.Handler, b.Handler))
	})
	todo = slices.Compact(todo)
	rows := make(map[delivery.Key]found, len(todo))
	for round := 0; len(todo) > 0; round++ {
		if round == claimRounds {
			return nil, fmt.Errorf("claim ledger: %d claims kept vanishing while read", len(todo))
		}
		events, handlers := split(todo)
		var got []struct {
			EventID   string `db:"event_id"`
			Handler   string `db:"handler"`
			Acquired  bool   `db:"acquired"`
			Takeovers int    `db:"takeovers"`
			Status    string `db:"status"`
			StartedAt int64  `db:"started_at"`
		}
		// The upsert returns the rows it inserted or took over; the rest are read as they stand
		// (after the upsert waited for any transaction that held them).
		if err := tx.SelectContext(ctx, &got, `WITH keys AS (
				SELECT * FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS k (event_id, handler, ord)),
			claimed AS (
				INSERT INTO processed_events (event_id, handler, status, started_at)
				SELECT event_id, handler, 'in_progress', $3::bigint FROM keys ORDER BY ord
				ON CONFLICT (event_id, handler) DO UPDATE SET started_at = excluded.started_at, processed_at = NULL,
					takeovers = processed_events.takeovers + 1
				WHERE processed_events.status = 'in_progress' AND processed_events.started_at <= $4
				RETURNING event_id, handler, takeovers)
			SELECT c.event_id, c.handler, true AS acquired, c.takeovers, 'in_progress' AS status, $3::bigint AS started_at FROM claimed c
			UNION ALL
			SELECT p.event_id, p.handler, false, p.takeovers, p.status, p.started_at
			FROM keys k JOIN processed_events p ON p.event_id = k.event_id AND p.handler = k.handler
			WHERE NOT EXISTS (SELECT 1 FROM claimed c WHERE c.event_id = k.event_id AND c.handler = k.handler)`,
			events, handlers, token, stale); err != nil {
			return nil, fmt.Errorf("claim ledger: %w", err)
		}
		for _, g := range got {
			rows[delivery.Key{EventID: g.EventID, Handler: g.Handler}] = found{acquired: g.Acquired, takeovers: g.Takeovers,
				done: g.Status == "done", startedAt: g.StartedAt}
		}
		todo = slices.DeleteFunc(todo, func(k delivery.Key) bool { _, ok := rows[k]; return ok })
	}
	claims := make([]delivery.Claim, len(keys))
	first := make(map[delivery.Key]int, len(keys)) // key → index of its first occurrence
	for i, k := range keys {
		claims[i].Key = k
		// A key asked twice in one call (two copies of a message in one fetch) is acquired once;
		// the copy sees the claim as held, or done, like any other delivery would.
		if j, dup := first[k]; dup {
			claims[i] = claims[j]
			if claims[j].State == delivery.Acquired {
				claims[i] = delivery.Claim{Key: k, State: delivery.Held, HeldUntil: time.UnixMilli(token + lease.Milliseconds())}
			}
			continue
		}
		first[k] = i
		switch r := rows[k]; {
		case r.acquired:
			claims[i].State, claims[i].Token, claims[i].TookOver = delivery.Acquired, token, r.takeovers > 0
		case r.done:
			claims[i].State = delivery.Done
		default:
			claims[i].State = delivery.Held
			claims[i].HeldUntil = time.UnixMilli(r.startedAt + lease.Milliseconds())
		}
	}
	return claims, nil
}

func split(keys []delivery.Key) (events, handlers []string) {
	events, handlers = make([]string, len(keys)), make([]string, len(keys))
	for i, k := range keys {
		events[i], handlers[i] = k.EventID, k.Handler
	}
	return events, handlers
}

// Settle writes marks in one transaction (for sources whose message outcome lives elsewhere,
// such as JetStream).
func (l *Ledger) Settle(ctx context.Context, now time.Time, marks []delivery.Mark) error {
	if len(marks) == 0 {
		return nil
	}
	return l.s.write(ctx, func(tx *sqlx.Tx) error { return settleLedger(ctx, tx, now, marks) })
}

// Renew moves the claims still carrying their tokens to now, in one statement.
func (l *Ledger) Renew(ctx context.Context, now time.Time, claims []delivery.Mark) ([]bool, error) {
	held := make([]bool, len(claims))
	if len(claims) == 0 {
		return held, nil
	}
	events, handlers, tokens := columns(claims)
	kept := map[delivery.Key]bool{}
	err := l.s.write(ctx, func(tx *sqlx.Tx) error {
		clear(kept)
		rows, err := tx.QueryContext(ctx, `UPDATE processed_events p SET started_at = $1
			FROM unnest($2::text[], $3::text[], $4::bigint[]) AS v (event_id, handler, token)
			WHERE p.event_id = v.event_id AND p.handler = v.handler AND p.started_at = v.token AND p.status = 'in_progress'
			RETURNING p.event_id, p.handler`, sqlrow.Millis(now), events, handlers, tokens)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k delivery.Key
			if err := rows.Scan(&k.EventID, &k.Handler); err != nil {
				return err
			}
			kept[k] = true
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("renew ledger claims: %w", err)
	}
	for i, c := range claims {
		held[i] = kept[c.Key]
	}
	return held, nil
}

// settleLedger marks each claim done or releases it, only while the row still carries the
// claim's token: a delivery whose claim was taken over touches nothing.
func settleLedger(ctx context.Context, tx *sqlx.Tx, now time.Time, marks []delivery.Mark) error {
	if len(marks) == 0 {
		return nil
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
	if len(released) > 0 {
		events, handlers, tokens := columns(released)
		if _, err := tx.ExecContext(ctx, `DELETE FROM processed_events p
			USING unnest($1::text[], $2::text[], $3::bigint[]) AS v (event_id, handler, token)
			WHERE p.event_id = v.event_id AND p.handler = v.handler AND p.started_at = v.token AND p.status = 'in_progress'`,
			events, handlers, tokens); err != nil {
			return fmt.Errorf("release ledger claims: %w", err)
		}
	}
	if len(done) > 0 {
		events, handlers, tokens := columns(done)
		if _, err := tx.ExecContext(ctx, `UPDATE processed_events p SET status = 'done', processed_at = $1
			FROM unnest($2::text[], $3::text[], $4::bigint[]) AS v (event_id, handler, token)
			WHERE p.event_id = v.event_id AND p.handler = v.handler AND p.started_at = v.token AND p.status = 'in_progress'`,
			sqlrow.Millis(now), events, handlers, tokens); err != nil {
			return fmt.Errorf("mark ledger done: %w", err)
		}
	}
	return nil
}

func columns(marks []delivery.Mark) (events, handlers []string, tokens []int64) {
	for _, m := range marks {
		events, handlers, tokens = append(events, m.EventID), append(handlers, m.Handler), append(tokens, m.Token)
	}
	return events, handlers, tokens
}

// Prune deletes ledger rows whose claim began more than keep ago (30 days in production),
// returning how many it removed.
func (l *Ledger) Prune(ctx context.Context, now time.Time, keep time.Duration) (int64, error) {
	res, err := l.s.db.ExecContext(ctx, `DELETE FROM processed_events WHERE started_at < $1`, sqlrow.Millis(now.Add(-keep)))
	if err != nil {
		return 0, fmt.Errorf("prune ledger: %w", err)
	}
	return res.RowsAffected()
}
