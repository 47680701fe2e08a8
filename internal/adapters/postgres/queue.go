package postgres

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/outbox"
)

// ClaimLeaseDefault is how long a claimed row belongs to its claimer (outbox.ClaimLeaseDefault).
const ClaimLeaseDefault = outbox.ClaimLeaseDefault

// QueueConfig tunes a Queue; zero fields take the defaults.
type QueueConfig = outbox.QueueConfig

// Queue is event_queue as a delivery.Source, with the SQLite queue's rules: besides due pending
// rows it claims rows whose claim expired (a dead or stalled claimer) and relayed rows past their
// re-relay horizon, counting the delivery that came to nothing as an attempt. Claims lock their
// rows with FOR UPDATE SKIP LOCKED, so workers on any number of hosts claim at once without
// waiting for each other or ever getting the same row. It is an Extender: the pump renews the
// claims it holds.
type Queue struct {
	s           *Store
	maxAttempts int
	lease       time.Duration
	log         *slog.Logger
	onDead      func()
	notify      *notifier

	// mu orders Settle and Extend, which both read and move claim tokens, and guards held and
	// seen.
	mu   sync.Mutex
	held map[int64]*rowRef // claimed by this queue and not yet settled
	seen uint64            // the notifier's count when the last claim began
}

// Queue returns the outbox as a delivery source, starting the store's commit notifier if this
// is its first queue.
func (s *Store) Queue(cfg QueueConfig) *Queue {
	log := cmp.Or(cfg.Logger, slog.Default())
	return &Queue{
		s:           s,
		maxAttempts: cmp.Or(cfg.MaxAttempts, 5),
		lease:       cmp.Or(cfg.ClaimLease, ClaimLeaseDefault),
		log:         log,
		onDead:      cfg.OnDeadLetter,
		notify:      s.startNotifier(log),
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

// RowID is the claimed row's event_queue id: the delivery log names a foreign writer's row (which
// has no event id) by it.
func (r rowRef) RowID() int64 { return r.id }

// claimSQL claims in one statement. Three branches each walk their index in due order and stop
// at $3 rows, skipping rows another claimer has locked: due pending rows, expired claims, and
// relayed rows past their re-relay horizon. The earliest $3 of them are claimed (the others'
// locks go with the commit); an expired claim and a re-relay count the delivery that came to
// nothing as an attempt. kind tells the branch for the log. (FOR UPDATE cannot stand in a
// UNION, hence a materialised CTE per branch.)
const claimSQL = `WITH pending AS MATERIALIZED (
		SELECT id, next_attempt_at AS due, 'pending' AS kind FROM event_queue
		WHERE status = 'pending' AND next_attempt_at <= $1
		ORDER BY next_attempt_at, id LIMIT $3 FOR UPDATE SKIP LOCKED),
	expired AS MATERIALIZED (
		SELECT id, claimed_at AS due, 'processing' AS kind FROM event_queue
		WHERE status = 'processing' AND claimed_at <= $2
		ORDER BY claimed_at, id LIMIT $3 FOR UPDATE SKIP LOCKED),
	relayed AS MATERIALIZED (
		SELECT id, next_attempt_at AS due, 'relayed' AS kind FROM event_queue
		WHERE status = 'relayed' AND next_attempt_at <= $1
		ORDER BY next_attempt_at, id LIMIT $3 FOR UPDATE SKIP LOCKED),
	picked AS (
		SELECT id, kind FROM (SELECT * FROM pending UNION ALL SELECT * FROM expired UNION ALL SELECT * FROM relayed) AS due
		ORDER BY due, id LIMIT $3)
	UPDATE event_queue e SET status = 'processing', claimed_at = $1,
		attempts = e.attempts + (e.status <> 'pending')::int,
		last_error = CASE e.status WHEN 'processing' THEN $4 WHEN 'relayed' THEN $5 ELSE e.last_error END
	FROM picked WHERE e.id = picked.id
	RETURNING e.id, e.event_id, e.event_type, e.payload, e.attempts, e.relays, picked.kind`

// Claim takes up to max rows that are due, oldest first. A row whose abandoned delivery was its
// MaxAttempts-th is dead-lettered instead of claimed.
func (q *Queue) Claim(ctx context.Context, max int) ([]delivery.Message, error) {
	q.mu.Lock()
	q.seen = q.notify.current()
	q.mu.Unlock()
	now := sqlrow.Millis(q.s.now())
	stale := now - q.lease.Milliseconds()
	abandoned := fmt.Sprintf("delivery abandoned: its worker died or stalled past the claim lease (%s)", q.lease)
	lost := "no outcome recorded within the re-relay horizon (the broker lost it, or its consumers died): relayed again"
	var msgs []delivery.Message
	var reclaimed, rerelayed int
	var dead []outbox.DeadRow
	err := q.s.write(ctx, func(tx *sqlx.Tx) error {
		var err error
		if dead, err = q.deadLetterAbandoned(ctx, tx, now, stale); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, claimSQL, now, stale, max, abandoned, lost)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				m        delivery.Message
				id       int64
				eventID  sql.NullString
				payload  string
				attempts int
				kind     string
			)
			if err := rows.Scan(&id, &eventID, &m.Type, &payload, &attempts, &m.Handoffs, &kind); err != nil {
				return err
			}
			switch kind {
			case "processing":
				reclaimed++
			case "relayed":
				rerelayed++
			}
			m.EventID = eventID.String
			m.RowID = id
			m.Payload = []byte(payload)
			m.Attempt = attempts + 1
			m.Ref = &rowRef{id: id, token: now}
			msgs = append(msgs, m)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("claim events: %w", err)
	}
	slices.SortFunc(msgs, func(a, b delivery.Message) int { return cmp.Compare(a.RowID, b.RowID) })
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
// processing row whose claim expired, a relayed row past its re-relay horizon. Rows another
// claimer has locked are left to it.
func (q *Queue) deadLetterAbandoned(ctx context.Context, tx *sqlx.Tx, now, stale int64) ([]outbox.DeadRow, error) {
	var dead []outbox.DeadRow
	err := tx.SelectContext(ctx, &dead, `WITH d AS (
			SELECT id FROM event_queue
			WHERE ((status = 'processing' AND claimed_at <= $1) OR (status = 'relayed' AND next_attempt_at <= $4))
				AND attempts + 1 >= $2
			FOR UPDATE SKIP LOCKED)
		UPDATE event_queue e SET claimed_at = NULL, attempts = e.attempts + 1,
			last_error = CASE e.status
				WHEN 'processing' THEN format('dead-lettered after %s attempts: the worker of the last one died or stalled past the claim lease (%s), as a handler that crashes the process would make it do every time', e.attempts + 1, $3::text)
				ELSE format('dead-lettered after %s attempts: no outcome was recorded within the re-relay horizon of the last one (the broker lost it, or its consumers died)', e.attempts + 1)
			END,
			status = 'dead_lettered'
		FROM d WHERE e.id = d.id
		RETURNING e.id, e.event_id, e.event_type, e.attempts`, stale, q.maxAttempts, q.lease.String(), now)
	if err != nil {
		return nil, fmt.Errorf("dead-letter abandoned events: %w", err)
	}
	if q.onDead != nil {
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
	q.mu.Lock()
	defer q.mu.Unlock()
	err := q.s.write(ctx, func(tx *sqlx.Tx) error {
		if err := settleLedger(ctx, tx, now, marks); err != nil {
			return err
		}
		return q.settleRows(ctx, tx, now, results)
	})
	if err != nil {
		return fmt.Errorf("settle events: %w", err)
	}
	for _, r := range results {
		if ref, ok := r.Msg.Ref.(*rowRef); ok {
			delete(q.held, ref.id)
		}
	}
	return nil
}

// ExtendEvery is how often the pump extends this queue's claims: a third of the lease, so two
// extensions may fail before a live worker's claim expires.
func (q *Queue) ExtendEvery() time.Duration { return q.lease / 3 }

// Extend renews the claim of every row this queue holds, waiting in the pump's local queue or
// running, so only a dead or stalled worker's rows are claimed again after the lease. A row
// claimed by another worker meanwhile is dropped from the set; its settle here will change
// nothing.
func (q *Queue) Extend(ctx context.Context) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.held) == 0 {
		return nil
	}
	now := sqlrow.Millis(q.s.now())
	refs := make([]*rowRef, 0, len(q.held))
	ids := make([]int64, 0, len(q.held))
	tokens := make([]int64, 0, len(q.held))
	for _, ref := range q.held {
		refs = append(refs, ref)
		ids, tokens = append(ids, ref.id), append(tokens, ref.token)
	}
	kept := make(map[int64]bool, len(refs))
	err := q.s.write(ctx, func(tx *sqlx.Tx) error {
		rows, err := tx.QueryContext(ctx, `UPDATE event_queue e SET claimed_at = $1
			FROM unnest($2::bigint[], $3::bigint[]) AS v (id, token)
			WHERE e.id = v.id AND e.claimed_at = v.token AND e.status = 'processing'
			RETURNING e.id`, now, ids, tokens)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			kept[id] = true
		}
		return rows.Err()
	})
	if err != nil {
		return fmt.Errorf("extend claims: %w", err)
	}
	lost := 0
	for _, ref := range refs {
		if kept[ref.id] {
			ref.token = now
			continue
		}
		delete(q.held, ref.id)
		lost++
	}
	if lost > 0 {
		q.log.Warn("claims lost before they could be extended: this worker stalled past the claim lease and another took the rows",
			"count", lost, "lease", q.lease)
	}
	return nil
}

func (q *Queue) settleRows(ctx context.Context, tx *sqlx.Tx, now time.Time, results []delivery.Result) error {
	const owned = ` WHERE id = $%d AND status = 'processing' AND claimed_at = $%d`
	var acked []int64
	var hIDs, hTokens, hUntil []int64 // handoffs
	returned := false
	for _, r := range results {
		ref, ok := r.Msg.Ref.(*rowRef)
		if !ok {
			return fmt.Errorf("message %q was not claimed from this queue", r.Msg.EventID)
		}
		var err error
		switch r.Kind {
		case delivery.Ack:
			acked = append(acked, ref.id)
		case delivery.Handoff:
			hIDs, hTokens, hUntil = append(hIDs, ref.id), append(hTokens, ref.token), append(hUntil, sqlrow.Millis(r.Until))
		case delivery.Return:
			returned = true
			_, err = tx.ExecContext(ctx, `UPDATE event_queue SET status = 'pending', claimed_at = NULL`+fmt.Sprintf(owned, 1, 2),
				ref.id, ref.token)
		case delivery.Defer:
			_, err = tx.ExecContext(ctx, `UPDATE event_queue SET status = 'pending', claimed_at = NULL, next_attempt_at = $1`+
				fmt.Sprintf(owned, 2, 3), sqlrow.Millis(r.Until), ref.id, ref.token)
		case delivery.Retry, delivery.DeadLetter:
			// attempts counts failed deliveries; the row dead-letters when they reach the limit.
			dead := r.Kind == delivery.DeadLetter || r.Msg.Attempt >= q.maxAttempts
			var res sql.Result
			res, err = tx.ExecContext(ctx, `UPDATE event_queue SET attempts = attempts + 1, claimed_at = NULL,
				status = CASE WHEN $1 THEN 'dead_lettered' ELSE 'pending' END, next_attempt_at = $2, last_error = $3`+
				fmt.Sprintf(owned, 4, 5), dead, sqlrow.Millis(now.Add(r.Delay)), errorText(r.Err), ref.id, ref.token)
			if err == nil && dead && r.Kind == delivery.Retry {
				if n, _ := res.RowsAffected(); n > 0 {
					if q.onDead != nil {
						q.onDead()
					}
					q.log.Error("event dead-lettered: max attempts reached", append(outbox.RowFields(r.Msg.EventID, ref.id),
						"event_type", r.Msg.Type, "attempt", r.Msg.Attempt, "error", r.Err)...)
				}
			}
		default:
			err = fmt.Errorf("unknown outcome %v", r.Kind)
		}
		if err != nil {
			return fmt.Errorf("settle event %q: %w", r.Msg.EventID, err)
		}
	}
	// A handoff waits for the consumer's outcome until Until, and is conditioned on the claim;
	// a consumer that already recorded the outcome moved the row on, and the handoff then
	// changes nothing.
	if len(hIDs) > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE event_queue e SET status = 'relayed', claimed_at = NULL,
				relays = e.relays + 1, next_attempt_at = v.until
			FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) AS v (id, token, until)
			WHERE e.id = v.id AND e.claimed_at = v.token AND e.status = 'processing'`, hIDs, hTokens, hUntil); err != nil {
			return fmt.Errorf("record handoff: %w", err)
		}
	}
	// Acks are not conditioned on the claim: every handler is done, so the event is complete even
	// if another claimer took the row over meanwhile (it will find the ledger done).
	if len(acked) > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE event_queue SET status = 'done', claimed_at = NULL, last_error = NULL
			WHERE id = ANY($1) AND status IN ('pending', 'processing')`, acked); err != nil {
			return fmt.Errorf("mark done: %w", err)
		}
	}
	// Rows handed back are due at once: wake the claimers (the notification goes out at commit).
	if returned {
		if _, err := tx.ExecContext(ctx, `SELECT pg_notify('`+notifyChannel+`', '')`); err != nil {
			return fmt.Errorf("notify: %w", err)
		}
	}
	return nil
}

// Wait returns when a transaction has committed events (or handed rows back) since the last
// claim began, or after the store's notify poll (default a second), which also catches rows
// whose retry time or lease has come.
func (q *Queue) Wait(ctx context.Context) error {
	q.mu.Lock()
	seen := q.seen
	q.mu.Unlock()
	q.notify.wait(ctx, seen, q.s.notifyPoll)
	return nil
}

// Close releases nothing: the notifier belongs to the store. It is here so the queue closes
// like the SQLite one.
func (q *Queue) Close() error { return nil }

// errorText is err as last_error keeps it: at most outbox.MaxErrorLen bytes, cut at a character, and
// valid text for PostgreSQL (which refuses NUL and invalid UTF-8 where SQLite stores them).
func errorText(err error) string {
	if err == nil {
		return "unknown error"
	}
	s := strings.ToValidUTF8(strings.ReplaceAll(err.Error(), "\x00", ""), "\uFFFD")
	if len(s) > outbox.MaxErrorLen {
		cut := outbox.MaxErrorLen
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
