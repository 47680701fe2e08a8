package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/outbox"
)

// Claimer is what claiming from the outbox does differently per engine: SQLite's one writer
// claims with a plain UPDATE, PostgreSQL's many claimers lock what they take with SKIP LOCKED,
// and each upserts ledger claims its own way (SQLite a VALUES list behind a savepoint, PostgreSQL
// one writable CTE that reads back what it did not take).
type Claimer interface {
	// ClaimRows moves up to c.Max due rows of event_queue to processing in tx, by the rules of
	// outbox.Lifecycle.Claim: due pending rows, processing rows whose claim is at or before
	// c.Stale, and relayed rows past their re-relay horizon, the earliest due first; an expired
	// claim and a re-relay count as an attempt, with c.Abandoned or c.Lost as last_error.
	ClaimRows(ctx context.Context, tx *Tx, c ClaimArgs) (Claimed, error)
	// ClaimLedger inserts keys' ledger rows in_progress with token, or takes over those in
	// progress since stale or earlier, and returns the take-overs so far of each key it
	// acquired; it may report other keys' rows as they stand (standing), and the caller reads
	// any key in neither map itself.
	ClaimLedger(ctx context.Context, tx *Tx, keys []delivery.Key, token, stale int64) (acquired map[delivery.Key]int, standing map[delivery.Key]outbox.Entry, err error)
}

// AloneClaimer is a Claimer that can also claim outside a transaction, each claim one
// statement committed on its own: PostgreSQL's claims are single statements, and BEGIN and
// COMMIT around them were two of their three round trips (issue 34). The queue uses it for
// claims without the dead-letter sweep, the ledger for every claim.
type AloneClaimer interface {
	Claimer
	// ClaimRowsAlone is ClaimRows in a statement of its own.
	ClaimRowsAlone(ctx context.Context, c ClaimArgs) (Claimed, error)
	// ClaimLedgerAlone is ClaimLedger in statements of their own, answering for every key.
	ClaimLedgerAlone(ctx context.Context, keys []delivery.Key, token, stale int64) (acquired map[delivery.Key]int, standing map[delivery.Key]outbox.Entry, err error)
	// SettleAckedAlone settles acked rows in one statement: it marks done the ledger claims of
	// marks (all Done) that still carry their tokens, and marks done (outbox.Lifecycle.Settle's
	// Ack) each row of rows (id → event id) whose every mark landed or whose handler's row was
	// already done. It returns those rows' ids; the caller settles the others as Settle does.
	SettleAckedAlone(ctx context.Context, now int64, marks []delivery.Mark, rows map[int64]string) (complete []int64, err error)
}

// ClaimArgs are a claim's inputs, in Unix milliseconds.
type ClaimArgs struct {
	Now, Stale int64
	Max        int
	// MaxAttempts: an expired claim or a re-relay whose delivery was the row's last attempt
	// (attempts + 1 ≥ MaxAttempts) is not claimed but left to the dead-letter sweep.
	MaxAttempts int
	// Overdue: the claim must also look for expired claims and relayed rows past their horizon,
	// even when due pending rows fill the batch. It is set at the sweep's cadence (a quarter of
	// the claim lease): those rows come only from dead workers and lost messages, and
	// PostgreSQL's scan for them walks the index entries every claimed row left behind until
	// vacuum removes them, so its claimer skips it while pending rows fill its batches (issue 34).
	Overdue         bool
	Abandoned, Lost string
}

// Claimed is what a claim took: the rows, and how many of them were expired claims and
// re-relays (for the log).
type Claimed struct {
	Rows                 []ClaimedRow
	Reclaimed, Rerelayed int
}

// ClaimedRow is a row as a claim returns it.
type ClaimedRow struct {
	ID       int64
	EventID  sql.NullString
	Type     string
	Payload  []byte
	Attempts int
	Relays   int
}

// Waker tells a queue when rows may have become claimable: SQLite watches its WAL for commits,
// PostgreSQL listens for notifications.
type Waker interface {
	// Claiming is called as a claim begins: a commit after it ends the next Wait.
	Claiming()
	// Wait returns when rows may have become claimable, or after at most the engine's poll.
	Wait(ctx context.Context) error
	// Close releases what the waker holds.
	Close() error
}

// chunk bounds the rows of one multi-row statement (a handful of parameters each on SQLite,
// well under its 32,766 variable limit).
const chunk = 500

// Queue is event_queue as a delivery.Source: the DB backend consumes it directly, and the NATS
// relay claims from it the same way. Besides due pending rows it claims rows whose claim expired
// (a dead or stalled claimer) and relayed rows past their re-relay horizon (no consumer recorded
// an outcome: the broker lost them); both count the delivery that came to nothing as an attempt.
// It is an Extender: the pump renews the claims it holds.
type Queue struct {
	s           *Store
	claims      Claimer
	wake        Waker
	life        outbox.Lifecycle
	maxAttempts int
	lease       time.Duration
	log         *slog.Logger
	onDead      func()

	// tokens orders Settle and Extend, which both read and move claim tokens, for the whole of
	// their transactions. mu guards held only and is never held across a transaction, so a
	// claim does not wait behind a settle that waits for the writer.
	tokens sync.Mutex
	mu     sync.Mutex
	held   map[int64]*rowRef // claimed by this queue and not yet settled

	// nextSweep is when (Unix ms) a claim next runs the dead-letter sweep (deadLetterAbandoned)
	// and must look for overdue rows (ClaimArgs.Overdue): every quarter of the claim lease, not
	// at every claim, since those scans grow with the rows claimed before them (issue 34).
	nextSweep atomic.Int64
}

// NewQueue returns the outbox as a delivery source, claiming through claims and waiting on wake.
func (s *Store) NewQueue(cfg outbox.QueueConfig, claims Claimer, wake Waker) *Queue {
	life := outbox.NewLifecycle(cfg, ErrorText)
	return &Queue{
		s:           s,
		claims:      claims,
		wake:        wake,
		life:        life,
		maxAttempts: life.MaxAttempts,
		lease:       life.ClaimLease,
		log:         cmp.Or(cfg.Logger, slog.Default()),
		onDead:      cfg.OnDeadLetter,
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

// Claim takes up to max rows that are due, oldest first (Claimer.ClaimRows). A row whose
// abandoned delivery was its MaxAttempts-th is dead-lettered instead of claimed: an event whose
// handler kills the process (OOM, a cgo fault) would otherwise be claimed again after every
// lease for ever, taking each batch it is in down with it. These are the rules of
// outbox.Lifecycle.Claim, which the queue conformance case checks the statements against.
func (q *Queue) Claim(ctx context.Context, max int) ([]delivery.Message, error) {
	q.wake.Claiming()
	now := sqlrow.Millis(q.s.now())
	sweep := now >= q.nextSweep.Load()
	args := ClaimArgs{Now: now, Stale: now - q.lease.Milliseconds(), Max: max, MaxAttempts: q.maxAttempts, Overdue: sweep,
		Abandoned: q.life.AbandonedError(), Lost: outbox.LostError}
	var claimed Claimed
	var dead []outbox.DeadRow
	var err error
	if alone, ok := q.claims.(AloneClaimer); ok && !sweep {
		claimed, err = alone.ClaimRowsAlone(ctx, args)
	} else {
		err = q.s.writeAlone(ctx, func(tx *Tx) error {
			var err error
			if sweep {
				if dead, err = q.deadLetterAbandoned(ctx, tx, args); err != nil {
					return err
				}
			}
			claimed, err = q.claims.ClaimRows(ctx, tx, args)
			return err
		})
	}
	if err == nil && sweep {
		q.nextSweep.Store(now + q.lease.Milliseconds()/4)
	}
	if err != nil {
		return nil, fmt.Errorf("claim events: %w", err)
	}
	msgs := make([]delivery.Message, 0, len(claimed.Rows))
	for _, r := range claimed.Rows {
		msgs = append(msgs, delivery.Message{EventID: r.EventID.String, RowID: r.ID, Type: r.Type, Payload: r.Payload,
			Attempt: r.Attempts + 1, Handoffs: r.Relays, Ref: &rowRef{id: r.ID, token: now}})
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
	if claimed.Reclaimed > 0 {
		q.log.Warn("reclaiming events whose claim outlived the lease (a claimer died); the abandoned delivery counts as an attempt",
			"count", claimed.Reclaimed, "lease", q.lease)
	}
	if claimed.Rerelayed > 0 {
		q.log.Warn("relaying again events with no outcome recorded within the re-relay horizon (the broker lost them, or their consumers died)",
			"count", claimed.Rerelayed)
	}
	return msgs, nil
}

// deadLetterAbandoned dead-letters the rows whose last allowed attempt came to nothing: a
// processing row whose claim expired, a relayed row past its re-relay horizon. Rows another
// claimer has locked are left to it.
func (q *Queue) deadLetterAbandoned(ctx context.Context, tx *Tx, c ClaimArgs) ([]outbox.DeadRow, error) {
	var dead []outbox.DeadRow
	err := tx.SelectContext(ctx, &dead, `UPDATE event_queue SET claimed_at = NULL, attempts = attempts + 1,
			last_error = CASE status
				WHEN 'processing' THEN format('dead-lettered after %s attempts: the worker of the last one died or stalled past the claim lease (%s), as a handler that crashes the process would make it do every time', attempts + 1, CAST(? AS TEXT))
				ELSE format('dead-lettered after %s attempts: no outcome was recorded within the re-relay horizon of the last one (the broker lost it, or its consumers died)', attempts + 1)
			END,
			status = 'dead_lettered'
		WHERE id IN (SELECT id FROM event_queue
			WHERE ((status = 'processing' AND claimed_at <= ?) OR (status = 'relayed' AND next_attempt_at <= ?))
				AND attempts + 1 >= ?`+q.s.locking("FOR UPDATE SKIP LOCKED")+`)
		RETURNING id, event_id, event_type, attempts`, q.lease.String(), c.Stale, c.Now, q.maxAttempts)
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

// Settle writes the ledger marks and the rows' outcomes in one transaction, each row's as
// outbox.Lifecycle.Settle decides it: conditioned on its claim token, so a row claimed again
// meanwhile is left to its new owner. A batch of acks is one statement where the claimer can
// (settleAcked), and only what it could not complete goes through the transaction.
func (q *Queue) Settle(ctx context.Context, results []delivery.Result) error {
	now := q.s.now()
	var marks []delivery.Mark
	for _, r := range results {
		marks = append(marks, r.Marks...)
	}
	q.tokens.Lock()
	defer q.tokens.Unlock()
	rest, restMarks, err := q.settleAcked(ctx, now, results, marks)
	if err != nil {
		return fmt.Errorf("settle events: %w", err)
	}
	if len(rest) > 0 {
		err = q.s.writeAlone(ctx, func(tx *Tx) error {
			incomplete, err := q.s.settleLedger(ctx, tx, now, restMarks)
			if err != nil {
				return err
			}
			return q.settleRows(ctx, tx, now, rest, incomplete)
		})
		if err != nil {
			return fmt.Errorf("settle events: %w", err)
		}
	}
	q.mu.Lock()
	for _, r := range results {
		if ref, ok := r.Msg.Ref.(*rowRef); ok && q.held[ref.id] == ref {
			delete(q.held, ref.id)
		}
	}
	q.mu.Unlock()
	return nil
}

// settleAcked settles a batch of acks in one statement where the claimer can
// (AloneClaimer.SettleAckedAlone), the common case of a queue that keeps up: every result an
// Ack, every mark Done. It returns the results and marks left for the transaction: all of them
// where it cannot, those whose rows it did not complete otherwise (a mark that missed: the
// transaction's settle finds the claim taken over and defers the row, as before).
func (q *Queue) settleAcked(ctx context.Context, now time.Time, results []delivery.Result, marks []delivery.Mark) ([]delivery.Result, []delivery.Mark, error) {
	alone, ok := q.claims.(AloneClaimer)
	if !ok || len(results) == 0 {
		return results, marks, nil
	}
	rows := make(map[int64]string, len(results))
	for _, r := range results {
		ref, ok := r.Msg.Ref.(*rowRef)
		if !ok || r.Kind != delivery.Ack || r.Msg.EventID == "" {
			return results, marks, nil
		}
		for _, m := range r.Marks {
			if !m.Done {
				return results, marks, nil
			}
		}
		rows[ref.id] = r.Msg.EventID
	}
	complete, err := alone.SettleAckedAlone(ctx, sqlrow.Millis(now), marks, rows)
	if err != nil {
		return nil, nil, err
	}
	done := make(map[int64]bool, len(complete))
	for _, id := range complete {
		done[id] = true
	}
	var rest []delivery.Result
	var restMarks []delivery.Mark
	for _, r := range results {
		if !done[r.Msg.Ref.(*rowRef).id] {
			rest = append(rest, r)
			restMarks = append(restMarks, r.Marks...)
		}
	}
	return rest, restMarks, nil
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
	err := q.s.writeAlone(ctx, func(tx *Tx) error {
		clear(kept)
		for part := range slices.Chunk(refs, chunk) {
			rows := make([][]any, len(part))
			for i, ref := range part {
				rows[i] = []any{ref.id, ref.token}
			}
			from, args := q.s.d.Values("v", []string{"bigint", "bigint"}, rows)
			ids, err := sqlrow.Column[int64](tx.QueryContext(ctx, `UPDATE event_queue SET claimed_at = ? FROM `+from+`
				WHERE event_queue.id = v.column1 AND event_queue.claimed_at = v.column2
				AND event_queue.status = 'processing' RETURNING event_queue.id`, append([]any{now}, args...)...))
			if err != nil {
				return err
			}
			for _, id := range ids {
				kept[id] = true
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

// settleRows executes what the Lifecycle decides for each result: acks and handoffs, the
// common outcomes, in multi-row statements with the Lifecycle's guards; the others one by one.
// An ack of an incomplete event (a handler's done mark did not land: its claim was taken over)
// is a defer to now instead, guarded by the claim like any defer: the delivery that took the
// claim over decides the event.
func (q *Queue) settleRows(ctx context.Context, tx *Tx, now time.Time, results []delivery.Result, incomplete map[string]bool) error {
	var acked []int64
	var handedOff [][]any // id, token, until
	returned := false
	for _, r := range results {
		ref, ok := r.Msg.Ref.(*rowRef)
		if !ok {
			return fmt.Errorf("message %q was not claimed from this queue", r.Msg.EventID)
		}
		if r.Kind == delivery.Ack && incomplete[r.Msg.EventID] {
			r.Kind, r.Until = delivery.Defer, now
			q.log.Warn("event not completed: a handler's ledger claim was taken over while this delivery ran (it outlived the ledger lease); the delivery that took it over decides the event",
				append(outbox.RowFields(r.Msg.EventID, ref.id), "event_type", r.Msg.Type, "attempt", r.Msg.Attempt)...)
		}
		u, err := q.life.Settle(r, ref.token, sqlrow.Millis(now))
		if err != nil {
			return fmt.Errorf("settle event %q: %w", r.Msg.EventID, err)
		}
		switch u.Step {
		case outbox.StepDone:
			acked = append(acked, ref.id)
			continue
		case outbox.StepHandoff:
			handedOff = append(handedOff, []any{ref.id, ref.token, u.Set.NextAttemptAt})
			continue
		}
		applied, err := u.Exec(ctx, tx, "id", ref.id, nil)
		if err != nil {
			return fmt.Errorf("settle event %q: %w", r.Msg.EventID, err)
		}
		returned = returned || (applied && u.Step == outbox.StepReturn)
		if applied && u.CountDead {
			if q.onDead != nil {
				q.onDead()
			}
			q.log.Error("event dead-lettered: max attempts reached", append(outbox.RowFields(r.Msg.EventID, ref.id),
				"event_type", r.Msg.Type, "attempt", r.Msg.Attempt, "error", r.Err)...)
		}
	}
	// A handoff waits for the consumer's outcome until Until, and is conditioned on the claim;
	// a consumer that already recorded the outcome (it can be that quick) moved the row on, and
	// the handoff then changes nothing.
	for part := range slices.Chunk(handedOff, chunk) {
		from, args := q.s.d.Values("v", []string{"bigint", "bigint", "bigint"}, part)
		if _, err := tx.ExecContext(ctx, `UPDATE event_queue SET status = 'relayed', claimed_at = NULL,
				relays = relays + 1, next_attempt_at = v.column3
			FROM `+from+`
			WHERE event_queue.id = v.column1 AND event_queue.claimed_at = v.column2 AND event_queue.status = 'processing'`,
			args...); err != nil {
			return fmt.Errorf("record handoff: %w", err)
		}
	}
	// Acks are not conditioned on the claim: every handler is done, so the event is complete even
	// if another claimer took the row over meanwhile (it will find the ledger done). The status
	// test is kept off its index: a planner left to itself may walk the status index, i.e. every
	// pending row, once per settle (quadratic in the backlog), instead of the primary key.
	for part := range slices.Chunk(acked, chunk) {
		from, args := q.s.d.Values("v", []string{"bigint"}, rowsOf(part))
		if _, err := tx.ExecContext(ctx, `UPDATE event_queue SET status = 'done', claimed_at = NULL, last_error = NULL
			WHERE `+q.s.d.NoIndex("status")+` IN ('pending', 'processing') AND id IN (SELECT v.column1 FROM `+from+`)`,
			args...); err != nil {
			return fmt.Errorf("mark done: %w", err)
		}
	}
	// Rows handed back are due at once: wake the claimers.
	if returned {
		if err := q.s.d.Wake(ctx, tx.tx); err != nil {
			return fmt.Errorf("wake claimers: %w", err)
		}
	}
	return nil
}

// Wait returns when new events may be claimable (Waker.Wait), which also catches rows whose
// retry time or lease has come within the engine's poll.
func (q *Queue) Wait(ctx context.Context) error { return q.wake.Wait(ctx) }

// Close releases the queue's waker.
func (q *Queue) Close() error { return q.wake.Close() }

// ErrorText is err as last_error keeps it: at most outbox.MaxErrorLen bytes, cut at a
// character, valid UTF-8 without NUL (which PostgreSQL refuses where SQLite stores them).
func ErrorText(err error) string {
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

// rowsOf is values as rows of one column, for Dialect.Values.
func rowsOf[T any](values []T) [][]any {
	out := make([][]any, len(values))
	for i, v := range values {
		out[i] = []any{v}
	}
	return out
}
