package postgres

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlstore"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/outbox"
)

// Queue returns the outbox as a delivery source: the shared queue, claiming with SKIP LOCKED and
// woken by the store's commit notifier, which the first queue starts.
func (s *Store) Queue(cfg outbox.QueueConfig) *sqlstore.Queue {
	log := cmp.Or(cfg.Logger, slog.Default())
	return s.NewQueue(cfg, claims{db: s.db}, &listenWaker{n: s.startNotifier(log), poll: s.notifyPoll})
}

// Ledger returns the store's processed-event ledger.
func (s *Store) Ledger() *sqlstore.Ledger { return s.NewLedger(claims{db: s.db}) }

// claims is PostgreSQL's side of sqlstore.Claimer: claimers on any number of hosts run at once,
// so a claim locks what it takes with FOR UPDATE SKIP LOCKED and never waits for another's rows
// or gets the same row. Each claim is one statement, run on its own outside a transaction
// (sqlstore.AloneClaimer) except where the queue sweeps in the same transaction.
type claims struct{ db *sqlx.DB }

var _ sqlstore.AloneClaimer = claims{}

// querier is what a claim runs its statements on: a transaction, or the pool (one statement,
// committed on its own).
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	SelectContext(ctx context.Context, dest any, query string, args ...any) error
}

// claimSQL claims in one statement. Three branches each walk their index in due order and stop
// at $3 rows, skipping rows another claimer has locked: due pending rows, expired claims, and
// relayed rows past their re-relay horizon. The earliest $3 of them are claimed (the others'
// locks go with the commit); an expired claim and a re-relay count the delivery that came to
// nothing as an attempt, and one that would be the last ($6, the delivery limit) is left to the
// dead-letter sweep. The last two branches run only when the due pending rows do not fill the
// batch, or when $7 (ClaimArgs.Overdue, the sweep's cadence) says so: their bitmap scans visit
// every dead index entry the rows claimed before left in those statuses until vacuum, which in a
// long drain made each claim slower than the last (issue 34). So a drain of a backlog takes an
// expired claim again within 1¼ leases; a queue that keeps up, at the lease. kind tells the branch for the log. (FOR UPDATE cannot stand in a
// UNION, hence a materialised CTE per branch.)
const claimSQL = `WITH pending AS MATERIALIZED (
		SELECT id, next_attempt_at AS due, 'pending' AS kind FROM event_queue
		WHERE status = 'pending' AND next_attempt_at <= $1
		ORDER BY next_attempt_at, id LIMIT $3 FOR UPDATE SKIP LOCKED),
	expired AS MATERIALIZED (
		SELECT id, claimed_at AS due, 'processing' AS kind FROM event_queue
		WHERE ($7 OR (SELECT count(*) FROM pending) < $3) AND status = 'processing' AND claimed_at <= $2 AND attempts + 1 < $6
		ORDER BY claimed_at, id LIMIT $3 FOR UPDATE SKIP LOCKED),
	relayed AS MATERIALIZED (
		SELECT id, next_attempt_at AS due, 'relayed' AS kind FROM event_queue
		WHERE ($7 OR (SELECT count(*) FROM pending) < $3) AND status = 'relayed' AND next_attempt_at <= $1 AND attempts + 1 < $6
		ORDER BY next_attempt_at, id LIMIT $3 FOR UPDATE SKIP LOCKED),
	picked AS (
		SELECT id, kind FROM (SELECT * FROM pending UNION ALL SELECT * FROM expired UNION ALL SELECT * FROM relayed) AS due
		ORDER BY due, id LIMIT $3)
	UPDATE event_queue e SET status = 'processing', claimed_at = $1,
		attempts = e.attempts + (e.status <> 'pending')::int,
		last_error = CASE e.status WHEN 'processing' THEN $4 WHEN 'relayed' THEN $5 ELSE e.last_error END
	FROM picked WHERE e.id = picked.id AND ` + asyncCommit + `
	RETURNING e.id, e.event_id, e.event_type, e.payload, e.attempts, e.relays, picked.kind`

// asyncCommit makes the claim's transaction commit without waiting for its WAL flush. A claim
// only says who works on a row: if a crash loses it, the row is pending again (or its ledger
// claim absent) and is delivered again, which the record allows (at least once, idempotent
// handlers); and it cannot be lost behind an effect that depends on it, since PostgreSQL writes
// WAL in order and any later durable commit — a handler's write, the settle — flushes it too.
// Durable, each claim cycle waited for two WAL flushes (the rows', the ledger's) before a handler
// could start (issue 34). It is a condition of the statement that writes (set_config's third
// argument makes it SET LOCAL), an InitPlan evaluated once before its first row is written, not a
// statement of its own: a round trip fewer for the claim and for the ledger claim.
const asyncCommit = `(SELECT set_config('synchronous_commit', 'off', true)) = 'off'`

func (claims) ClaimRows(ctx context.Context, tx *sqlstore.Tx, c sqlstore.ClaimArgs) (sqlstore.Claimed, error) {
	return claimRows(ctx, tx, c)
}

func (cl claims) ClaimRowsAlone(ctx context.Context, c sqlstore.ClaimArgs) (sqlstore.Claimed, error) {
	return claimRows(ctx, cl.db, c)
}

func claimRows(ctx context.Context, q querier, c sqlstore.ClaimArgs) (sqlstore.Claimed, error) {
	var out sqlstore.Claimed
	rows, err := q.QueryContext(ctx, claimSQL, c.Now, c.Stale, c.Max, c.Abandoned, c.Lost, c.MaxAttempts, c.Overdue)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		var r sqlstore.ClaimedRow
		var kind string
		if err := rows.Scan(&r.ID, &r.EventID, &r.Type, &r.Payload, &r.Attempts, &r.Relays, &kind); err != nil {
			return out, err
		}
		switch kind {
		case "processing":
			out.Reclaimed++
		case "relayed":
			out.Rerelayed++
		}
		out.Rows = append(out.Rows, r)
	}
	return out, rows.Err()
}

// claimRounds bounds how often ClaimLedger tries a key again whose row vanished between its
// insert and its read (its holder released it meanwhile, which a single SQLite writer never
// lets happen).
const claimRounds = 3

// ClaimLedger claims with one writable CTE per round: the upsert returns the rows it inserted or
// took over, and the rest are read as they stand (after the upsert waited for any transaction
// that held them).
func (claims) ClaimLedger(ctx context.Context, tx *sqlstore.Tx, keys []delivery.Key, token, stale int64) (map[delivery.Key]int, map[delivery.Key]outbox.Entry, error) {
	return claimLedger(ctx, tx, keys, token, stale)
}

// ClaimLedgerAlone runs ClaimLedger's rounds each as a statement of its own: a round's upsert
// and read are one statement, and no round depends on another having committed with it.
func (cl claims) ClaimLedgerAlone(ctx context.Context, keys []delivery.Key, token, stale int64) (map[delivery.Key]int, map[delivery.Key]outbox.Entry, error) {
	return claimLedger(ctx, cl.db, keys, token, stale)
}

func claimLedger(ctx context.Context, q querier, keys []delivery.Key, token, stale int64) (map[delivery.Key]int, map[delivery.Key]outbox.Entry, error) {
	// Distinct keys in one order: an upsert may not touch a row twice, and transactions that lock
	// rows in the same order cannot deadlock.
	todo := slices.Clone(keys)
	slices.SortFunc(todo, func(a, b delivery.Key) int {
		return cmp.Or(cmp.Compare(a.EventID, b.EventID), cmp.Compare(a.Handler, b.Handler))
	})
	todo = slices.Compact(todo)
	acquired := make(map[delivery.Key]int, len(todo))
	standing := map[delivery.Key]outbox.Entry{}
	for round := 0; len(todo) > 0; round++ {
		if round == claimRounds {
			return nil, nil, fmt.Errorf("%d claims kept vanishing while read", len(todo))
		}
		events, handlers := make([]string, len(todo)), make([]string, len(todo))
		for i, k := range todo {
			events[i], handlers[i] = k.EventID, k.Handler
		}
		var got []struct {
			EventID   string `db:"event_id"`
			Handler   string `db:"handler"`
			Acquired  bool   `db:"acquired"`
			Takeovers int    `db:"takeovers"`
			Status    string `db:"status"`
			StartedAt int64  `db:"started_at"`
		}
		if err := q.SelectContext(ctx, &got, `WITH keys AS (
				SELECT * FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS k (event_id, handler, ord)),
			claimed AS (
				INSERT INTO processed_events (event_id, handler, status, started_at)
				SELECT event_id, handler, 'in_progress', $3::bigint FROM keys WHERE `+asyncCommit+` ORDER BY ord
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
			return nil, nil, err
		}
		for _, g := range got {
			k := delivery.Key{EventID: g.EventID, Handler: g.Handler}
			if g.Acquired {
				acquired[k] = g.Takeovers
			} else {
				standing[k] = outbox.Entry{Status: g.Status, StartedAt: g.StartedAt, Takeovers: g.Takeovers}
			}
		}
		todo = slices.DeleteFunc(todo, func(k delivery.Key) bool {
			_, a := acquired[k]
			_, s := standing[k]
			return a || s
		})
	}
	return acquired, standing, nil
}

// listenWaker wakes a queue when a transaction has committed events (or handed rows back) since
// its last claim began, as the notifier hears it, or after the store's notify poll (default a
// second), which also catches rows whose retry time or lease has come.
type listenWaker struct {
	n    *notifier
	poll time.Duration
	seen atomic.Uint64 // the notifier's count when the last claim began
}

func (w *listenWaker) Claiming() { w.seen.Store(w.n.current()) }

func (w *listenWaker) Wait(ctx context.Context) error {
	w.n.wait(ctx, w.seen.Load(), w.poll)
	return nil
}

// Close releases nothing: the notifier belongs to the store, which stops it.
func (*listenWaker) Close() error { return nil }
