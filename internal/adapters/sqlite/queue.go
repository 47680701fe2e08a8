package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/outbox"

	"github.com/jmoiron/sqlx"
)

// ClaimLeaseDefault is how long a claimed row belongs to its claimer (outbox.ClaimLeaseDefault).
const ClaimLeaseDefault = outbox.ClaimLeaseDefault

// QueueConfig tunes a Queue; zero fields take the defaults.
type QueueConfig = outbox.QueueConfig

// Queue is event_queue as a delivery.Source: the DB backend consumes it directly, and the NATS
// relay claims from it the same way. Besides due pending rows it claims rows whose claim expired
// (a dead or stalled claimer) and relayed rows past their re-relay horizon (no consumer recorded
// an outcome: the broker lost them); both count the delivery that came to nothing as an attempt.
// It is an Extender: the pump renews the claims it holds.
type Queue struct {
	s           *Store
	maxAttempts int
	lease       time.Duration
	log         *slog.Logger
	onDead      func()
	watch       *watcher

	// tokens orders Settle and Extend, which both read and move claim tokens, for the whole of
	// their transactions. mu guards held only and is never held across a transaction, so a
	// claim does not wait behind a settle that waits for the writer.
	tokens sync.Mutex
	mu     sync.Mutex
	held   map[int64]*rowRef // claimed by this queue and not yet settled
}

// Queue returns the outbox as a delivery source.
func (s *Store) Queue(cfg QueueConfig) *Queue {
	return &Queue{
		s:           s,
		maxAttempts: cmp.Or(cfg.MaxAttempts, 5),
		lease:       cmp.Or(cfg.ClaimLease, ClaimLeaseDefault),
		log:         cmp.Or(cfg.Logger, slog.Default()),
		onDead:      cfg.OnDeadLetter,
		watch:       newWatcher(s),
		held:        map[int64]*rowRef{},
	}
}

var (
	_ delivery.Source   = (*Queue)(nil)
	_ delivery.Extender = (*Queue)(nil)
)

// rowRef is a claimed row's handle: its id and the claimed_at value that owns it. Extend moves
// the token forward (under Queue.mu), so a message carries a pointer.
type rowRef struct {
	id    int64
	token int64
}

// Claim takes up to max rows that are due: pending rows whose next_attempt_at has come, and
// processing rows whose claim is older than the lease (their claimer died). Oldest first. Each
// branch walks its index and stops at max rows, so a claim costs the same with a backlog of a
// million rows as with ten.
//
// A reclaimed row counts its abandoned delivery as an attempt, with last_error saying so: an
// event whose handler kills the process (OOM, a cgo fault) would otherwise be claimed again
// after every lease for ever, taking each batch it is in down with it. A row whose abandoned
// delivery was its MaxAttempts-th is dead-lettered instead of claimed.
func (q *Queue) Claim(ctx context.Context, max int) ([]delivery.Message, error) {
	now := sqlrow.Millis(q.s.now())
	stale := now - q.lease.Milliseconds()
	abandoned := fmt.Sprintf("delivery abandoned: its worker died or stalled past the claim lease (%s)", q.lease)
	lost := "no outcome recorded within the re-relay horizon (the broker lost it, or its consumers died): relayed again"
	var msgs []delivery.Message
	var reclaimed, rerelayed int
	var dead []outbox.DeadRow
	err := q.s.writeAlone(ctx, func(tx *sqlx.Tx) error {
		var err error
		if dead, err = q.deadLetterAbandoned(ctx, tx, now, stale); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT
				(SELECT count(*) FROM event_queue WHERE status = 'processing' AND claimed_at <= ?1),
				(SELECT count(*) FROM event_queue WHERE status = 'relayed' AND next_attempt_at <= ?2)`,
			stale, now).Scan(&reclaimed, &rerelayed); err != nil {
			return err
		}
		// Three branches, each walking its index: due pending rows, expired claims, and relayed
		// rows past their re-relay horizon. An expired claim and a re-relay each count the
		// delivery that came to nothing as an attempt.
		rows, err := tx.QueryContext(ctx, `UPDATE event_queue SET status = 'processing', claimed_at = ?1,
				attempts = attempts + (status <> 'pending'),
				last_error = CASE status WHEN 'processing' THEN ?4 WHEN 'relayed' THEN ?5 ELSE last_error END
			WHERE id IN (
				SELECT id FROM (
					SELECT id, due FROM (
						SELECT id, next_attempt_at AS due FROM event_queue
						WHERE status = 'pending' AND next_attempt_at <= ?1
						ORDER BY next_attempt_at, id LIMIT CAST(?3 AS INTEGER))
					UNION ALL
					SELECT id, due FROM (
						SELECT id, claimed_at AS due FROM event_queue
						WHERE status = 'processing' AND claimed_at <= ?2
						ORDER BY claimed_at, id LIMIT CAST(?3 AS INTEGER))
					UNION ALL
					SELECT id, due FROM (
						SELECT id, next_attempt_at AS due FROM event_queue
						WHERE status = 'relayed' AND next_attempt_at <= ?1
						ORDER BY next_attempt_at, id LIMIT CAST(?3 AS INTEGER))
				) ORDER BY due, id LIMIT CAST(?3 AS INTEGER))
			RETURNING id, event_id, event_type, payload, attempts, relays`,
			now, stale, max, abandoned, lost)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				m        delivery.Message
				id       int64
				eventID  sql.NullString
				attempts int
			)
			if err := rows.Scan(&id, &eventID, &m.Type, &m.Payload, &attempts, &m.Handoffs); err != nil {
				return err
			}
			m.EventID = eventID.String
			m.RowID = id
			m.Attempt = attempts + 1
			m.Ref = &rowRef{id: id, token: now}
			msgs = append(msgs, m)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("claim events: %w", err)
	}
	q.mu.Lock()
	for _, m := range msgs {
		ref := m.Ref.(*rowRef)
		q.held[ref.id] = ref
	}
	q.mu.Unlock()
	for _, d := range dead {
		q.log.Error("event dead-lettered: its worker died or stalled during its last attempt",
			append(outbox.RowFields(d.EventID.String, d.ID), "event_type", d.EventType, "attempt", d.Attempts, "lease", q.lease)...)
	}
	if reclaimed > 0 {
		q.log.Warn("reclaiming events whose claim outlived the lease (a claimer died); the abandoned delivery counts as an attempt",
			"count", reclaimed, "lease", q.lease)
	}
	if rerelayed > 0 {
		q.log.Warn("relaying again events with no outcome recorded within the re-relay horizon (the broker lost them, or their consumers died)",
			"count", rerelayed)
	}
	return msgs, nil
}

// deadLetterAbandoned dead-letters the rows whose last allowed attempt came to nothing: a
// processing row whose claim expired, a relayed row past its re-relay horizon.
func (q *Queue) deadLetterAbandoned(ctx context.Context, tx *sqlx.Tx, now, stale int64) ([]outbox.DeadRow, error) {
	var dead []outbox.DeadRow
	err := tx.SelectContext(ctx, &dead, `UPDATE event_queue SET claimed_at = NULL, attempts = attempts + 1,
			last_error = CASE status
				WHEN 'processing' THEN printf('dead-lettered after %d attempts: the worker of the last one died or stalled past the claim lease (%s), as a handler that crashes the process would make it do every time', attempts + 1, ?3)
				ELSE printf('dead-lettered after %d attempts: no outcome was recorded within the re-relay horizon of the last one (the broker lost it, or its consumers died)', attempts + 1)
			END,
			status = 'dead_lettered'
		WHERE ((status = 'processing' AND claimed_at <= ?1) OR (status = 'relayed' AND next_attempt_at <= ?4))
			AND attempts + 1 >= ?2
		RETURNING id, event_id, event_type, attempts`, stale, q.maxAttempts, q.lease.String(), now)
	if err != nil {
		return nil, fmt.Errorf("dead-letter abandoned events: %w", err)
	}
	if len(dead) > 0 && q.onDead != nil {
		for range dead {
			q.onDead()
		}
	}
	return dead, nil
}

// Settle writes the ledger marks and the rows' outcomes in one transaction. Each row update is
// conditioned on its claim token, so a row claimed again meanwhile is left to its new owner.
func (q *Queue) Settle(ctx context.Context, results []delivery.Result) error {
	now := q.s.now()
	var marks []delivery.Mark
	for _, r := range results {
		marks = append(marks, r.Marks...)
	}
	q.tokens.Lock()
	defer q.tokens.Unlock()
	err := q.s.writeAlone(ctx, func(tx *sqlx.Tx) error {
		if err := settleLedger(ctx, tx, now, marks); err != nil {
			return err
		}
		return q.settleRows(ctx, tx, now, results)
	})
	if err == nil {
		q.mu.Lock()
		for _, r := range results {
			if ref, ok := r.Msg.Ref.(*rowRef); ok && q.held[ref.id] == ref {
				delete(q.held, ref.id)
			}
		}
		q.mu.Unlock()
	}
	return err
}

// ExtendEvery is how often the pump extends this queue's claims: a third of the lease, so two
// extensions may fail or wait for the writer before a live worker's claim expires.
func (q *Queue) ExtendEvery() time.Duration { return q.lease / 3 }

// Extend renews the claim of every row this queue holds, waiting in the pump's local queue or
// running: a claim covers its queueing, so a live worker never loses a row to a reclaim (which
// would make its settle a no-op and its failures uncounted) and only a dead or stalled worker's
// rows are claimed again after the lease. A row claimed by another worker meanwhile is dropped
// from the set; its settle here will change nothing.
func (q *Queue) Extend(ctx context.Context) error {
	q.tokens.Lock()
	defer q.tokens.Unlock()
	q.mu.Lock()
	refs := make([]*rowRef, 0, len(q.held))
	for _, ref := range q.held {
		refs = append(refs, ref)
	}
	q.mu.Unlock()
	if len(refs) == 0 {
		return nil
	}
	now := sqlrow.Millis(q.s.now())
	kept := make(map[int64]bool, len(refs))
	err := q.s.writeAlone(ctx, func(tx *sqlx.Tx) error {
		for start := 0; start < len(refs); start += claimChunk {
			chunk := refs[start:min(start+claimChunk, len(refs))]
			var b strings.Builder
			b.WriteString(`UPDATE event_queue SET claimed_at = ? FROM (VALUES `)
			args := make([]any, 0, 1+2*len(chunk))
			args = append(args, now)
			for i, ref := range chunk {
				if i > 0 {
					b.WriteString(",")
				}
				b.WriteString("(?, ?)")
				args = append(args, ref.id, ref.token)
			}
			b.WriteString(`) AS v WHERE event_queue.id = v.column1 AND event_queue.claimed_at = v.column2
				AND event_queue.status = 'processing' RETURNING event_queue.id`)
			rows, err := tx.QueryContext(ctx, b.String(), args...)
			if err != nil {
				return err
			}
			for rows.Next() {
				var id int64
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return err
				}
				kept[id] = true
			}
			if err := rows.Close(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("extend claims: %w", err)
	}
	lost := 0
	q.mu.Lock()
	for _, ref := range refs {
		if kept[ref.id] {
			ref.token = now
			continue
		}
		if q.held[ref.id] == ref { // not claimed again meanwhile
			delete(q.held, ref.id)
		}
		lost++
	}
	q.mu.Unlock()
	if lost > 0 {
		q.log.Warn("claims lost before they could be extended: this worker stalled past the claim lease and another took the rows",
			"count", lost, "lease", q.lease)
	}
	return nil
}

func (q *Queue) settleRows(ctx context.Context, tx *sqlx.Tx, now time.Time, results []delivery.Result) error {
	stmts := map[delivery.Kind]*sql.Stmt{}
	prepare := func(k delivery.Kind, query string) (*sql.Stmt, error) {
		if st, ok := stmts[k]; ok {
			return st, nil
		}
		st, err := tx.PrepareContext(ctx, query)
		if err != nil {
			return nil, fmt.Errorf("settle events: %w", err)
		}
		stmts[k] = st
		return st, nil
	}
	defer func() {
		for _, st := range stmts {
			st.Close()
		}
	}()
	const owned = ` WHERE id = ? AND status = 'processing' AND claimed_at = ?`
	var acked []any
	var handedOff []any // id, token, until: three per row
	for _, r := range results {
		ref, ok := r.Msg.Ref.(*rowRef)
		if !ok {
			return fmt.Errorf("settle events: message %q was not claimed from this queue", r.Msg.EventID)
		}
		var err error
		var st *sql.Stmt
		switch kind := r.Kind; kind {
		case delivery.Ack:
			acked = append(acked, ref.id)
		case delivery.Handoff:
			handedOff = append(handedOff, ref.id, ref.token, sqlrow.Millis(r.Until))
		case delivery.Return:
			if st, err = prepare(kind, `UPDATE event_queue SET status = 'pending', claimed_at = NULL`+owned); err == nil {
				_, err = st.ExecContext(ctx, ref.id, ref.token)
			}
		case delivery.Defer:
			if st, err = prepare(kind, `UPDATE event_queue SET status = 'pending', claimed_at = NULL, next_attempt_at = ?`+owned); err == nil {
				_, err = st.ExecContext(ctx, sqlrow.Millis(r.Until), ref.id, ref.token)
			}
		case delivery.Retry, delivery.DeadLetter:
			// attempts counts failed deliveries; the row dead-letters when they reach the limit.
			dead := r.Kind == delivery.DeadLetter || r.Msg.Attempt >= q.maxAttempts
			if st, err = prepare(kind, `UPDATE event_queue SET attempts = attempts + 1, claimed_at = NULL,
				status = CASE WHEN ? THEN 'dead_lettered' ELSE 'pending' END, next_attempt_at = ?, last_error = ?`+owned); err == nil {
				_, err = st.ExecContext(ctx, dead, sqlrow.Millis(now.Add(r.Delay)), errorText(r.Err), ref.id, ref.token)
			}
			if err == nil && dead && r.Kind == delivery.Retry {
				if q.onDead != nil {
					q.onDead()
				}
				q.log.Error("event dead-lettered: max attempts reached", append(outbox.RowFields(r.Msg.EventID, ref.id),
					"event_type", r.Msg.Type, "attempt", r.Msg.Attempt, "error", r.Err)...)
			}
		default:
			err = fmt.Errorf("unknown outcome %v", r.Kind)
		}
		if err != nil {
			return fmt.Errorf("settle event %q: %w", r.Msg.EventID, err)
		}
	}
	// A handoff waits for the consumer's outcome until Until, and is conditioned on the claim;
	// a consumer that already recorded the outcome (it can be that quick) moved the row on, and
	// the handoff then changes nothing.
	for start := 0; start < len(handedOff); start += 3 * claimChunk {
		chunk := handedOff[start:min(start+3*claimChunk, len(handedOff))]
		q := `UPDATE event_queue SET status = 'relayed', claimed_at = NULL, relays = relays + 1, next_attempt_at = v.column3
			FROM (VALUES (?, ?, ?)` + strings.Repeat(", (?, ?, ?)", len(chunk)/3-1) + `) AS v
			WHERE event_queue.id = v.column1 AND event_queue.claimed_at = v.column2 AND event_queue.status = 'processing'`
		if _, err := tx.ExecContext(ctx, q, chunk...); err != nil {
			return fmt.Errorf("settle events: record handoff: %w", err)
		}
	}
	// Acks are not conditioned on the claim: every handler is done, so the event is complete even
	// if another claimer took the row over meanwhile (it will find the ledger done).
	for start := 0; start < len(acked); start += claimChunk {
		chunk := acked[start:min(start+claimChunk, len(acked))]
		// The unary + keeps the planner on the primary key: left to itself it walks the status
		// index, i.e. every pending row, once per settle (quadratic in the backlog).
		q := `UPDATE event_queue SET status = 'done', claimed_at = NULL, last_error = NULL
			WHERE +status IN ('pending', 'processing') AND id IN (?` + strings.Repeat(", ?", len(chunk)-1) + `)`
		if _, err := tx.ExecContext(ctx, q, chunk...); err != nil {
			return fmt.Errorf("settle events: mark done: %w", err)
		}
	}
	return nil
}

// Wait returns when another connection has committed (new events may be claimable) or after at
// most a second, which also catches rows whose retry time or lease has come.
func (q *Queue) Wait(ctx context.Context) error {
	return q.watch.wait(ctx, time.Second)
}

func errorText(err error) string {
	if err == nil {
		return "unknown error"
	}
	s := err.Error()
	if len(s) > outbox.MaxErrorLen {
		s = s[:outbox.MaxErrorLen] + "…"
	}
	return s
}

// Close releases the queue's watch connection.
func (q *Queue) Close() error { return q.watch.close() }
