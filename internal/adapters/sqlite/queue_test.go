package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlstore"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// bundle is one test's database, clock, queue and recording handlers.
type bundle struct {
	s     *Store
	clock *fakeClock
	q     *sqlstore.Queue
	calls *callLog
}

// callLog records handler invocations by "handler/event_id".
type callLog struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *callLog) add(h, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[h+"/"+id]++
}

func (c *callLog) count(h, id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[h+"/"+id]
}

func setup(t *testing.T, maxAttempts int) *bundle {
	t.Helper()
	clock := &fakeClock{t: time.Now()}
	s := newStore(t, WithClock(clock.now))
	q := s.Queue(outbox.QueueConfig{MaxAttempts: maxAttempts, Logger: testLogger(t)})
	t.Cleanup(func() { q.Close() })
	return &bundle{s: s, clock: clock, q: q, calls: &callLog{n: map[string]int{}}}
}

// handler returns a handler that records its calls and returns err.
func (b *bundle) handler(name string, err error, types ...string) delivery.Handler {
	return delivery.Handler{Name: name, Types: types, Handle: func(_ context.Context, e delivery.Envelope) error {
		b.calls.add(name, e.EventID)
		return err
	}}
}

func (b *bundle) engine(t *testing.T, ledger delivery.Ledger, hs ...delivery.Handler) *delivery.Engine {
	t.Helper()
	if ledger == nil {
		ledger = b.s.Ledger()
	}
	e, err := delivery.NewEngine(delivery.Config{Now: b.clock.now, Logger: testLogger(t)}, ledger, hs...)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// deliver runs one claim → prepare → run → settle round and returns how many were claimed.
func (b *bundle) deliver(t *testing.T, e *delivery.Engine) int {
	t.Helper()
	ctx := context.Background()
	msgs, err := b.q.Claim(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	var results []delivery.Result
	for _, j := range e.Prepare(ctx, msgs) {
		results = append(results, e.Run(ctx, j, nil))
	}
	if err := b.q.Settle(ctx, results); err != nil {
		t.Fatal(err)
	}
	return len(msgs)
}

func (b *bundle) enqueue(t *testing.T, events ...domain.Event) []string {
	t.Helper()
	if err := b.s.Enqueue(context.Background(), events...); err != nil {
		t.Fatal(err)
	}
	rows, err := b.s.read.Query(`SELECT event_id FROM event_queue ORDER BY id DESC LIMIT ?`, len(events))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	ids := make([]string, len(events))
	for i := len(events) - 1; rows.Next(); i-- {
		if err := rows.Scan(&ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// row is an event_queue row as tests inspect it.
type row struct {
	Status        string
	Attempts      int
	NextAttemptAt int64
	ClaimedAt     sql.NullInt64
	LastError     sql.NullString
}

func (b *bundle) row(t *testing.T, eventID string) row {
	t.Helper()
	var r row
	mustScan(t, b.s.read.QueryRow(`SELECT status, attempts, next_attempt_at, claimed_at, last_error FROM event_queue WHERE event_id = ?`, eventID),
		&r.Status, &r.Attempts, &r.NextAttemptAt, &r.ClaimedAt, &r.LastError)
	return r
}

func (b *bundle) ledgerRow(t *testing.T, eventID, handler string) (status string, startedAt int64, ok bool) {
	t.Helper()
	err := b.s.read.QueryRow(`SELECT status, started_at FROM processed_events WHERE event_id = ? AND handler = ?`, eventID, handler).Scan(&status, &startedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return "", 0, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return status, startedAt, true
}

var reindex = domain.SearchReindexRequested{}

func posterSynced() domain.Event { return domain.PosterSynced{MovieID: uuid.New()} }

func TestEnqueueRollsBackWithTransaction(t *testing.T) {
	t.Parallel()
	b := setup(t, 5)
	boom := errors.New("boom")
	err := b.s.writeAlone(context.Background(), func(tx *sqlx.Tx) error {
		if err := outbox.Insert(context.Background(), tx, b.clock.now(), reindex, posterSynced()); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	var n int
	mustScan(t, b.s.read.QueryRow(`SELECT count(*) FROM event_queue`), &n)
	if n != 0 {
		t.Fatalf("%d outbox rows survived a rolled-back transaction", n)
	}
	ids := b.enqueue(t, reindex, posterSynced())
	if ids[0] == ids[1] || uuid.MustParse(ids[0]).Version() != 7 {
		t.Fatalf("event ids %v: want distinct UUIDv7s", ids)
	}
}

// TestEnqueueStampsTheStoreClock: a row enqueued at the store's clock T carries T (Unix ms, an
// INTEGER like the column defaults write) as created_at and next_attempt_at, and is claimable at
// T and not a millisecond before, whatever the wall clock says.
func TestEnqueueStampsTheStoreClock(t *testing.T) {
	t.Parallel()
	for _, at := range []time.Time{time.Now().Add(24 * time.Hour), time.Now().Add(-24 * time.Hour)} {
		clock := &fakeClock{t: at}
		s := newStore(t, WithClock(clock.now))
		q := s.Queue(outbox.QueueConfig{Logger: testLogger(t)})
		t.Cleanup(func() { q.Close() })
		if err := s.Enqueue(context.Background(), reindex); err != nil {
			t.Fatal(err)
		}
		var created, next int64
		var createdType, nextType string
		mustScan(t, s.read.QueryRow(`SELECT created_at, next_attempt_at, typeof(created_at), typeof(next_attempt_at) FROM event_queue`),
			&created, &next, &createdType, &nextType)
		if created != at.UnixMilli() || next != at.UnixMilli() || createdType != "integer" || nextType != "integer" {
			t.Fatalf("enqueued at %d: created_at %d (%s), next_attempt_at %d (%s); want %[1]d as integers",
				at.UnixMilli(), created, createdType, next, nextType)
		}
		clock.advance(-time.Millisecond)
		if msgs, err := q.Claim(context.Background(), 10); err != nil || len(msgs) != 0 {
			t.Fatalf("a millisecond before its stamp: claimed %d (err %v), want none", len(msgs), err)
		}
		clock.advance(time.Millisecond)
		if msgs, err := q.Claim(context.Background(), 10); err != nil || len(msgs) != 1 {
			t.Fatalf("at its stamp: claimed %d (err %v), want the row", len(msgs), err)
		}
	}
}

func TestClaimTakesOnlyDuePendingRows(t *testing.T) {
	t.Parallel()
	b := setup(t, 5)
	ids := b.enqueue(t, reindex, reindex, reindex)
	later := b.clock.now().Add(time.Minute).UnixMilli()
	if _, err := b.s.write.Exec(`UPDATE event_queue SET next_attempt_at = ? WHERE event_id = ?`, later, ids[2]); err != nil {
		t.Fatal(err)
	}
	msgs, err := b.q.Claim(context.Background(), 10)
	if err != nil || len(msgs) != 2 {
		t.Fatalf("claimed %d (err %v), want the 2 due rows", len(msgs), err)
	}
	if msgs[0].EventID != ids[0] || msgs[1].EventID != ids[1] || msgs[0].Attempt != 1 {
		t.Fatalf("claimed %+v, want %v in order, attempt 1", msgs, ids[:2])
	}
	if r := b.row(t, ids[0]); r.Status != "processing" || r.ClaimedAt.Int64 != b.clock.now().UnixMilli() {
		t.Fatalf("claimed row %+v", r)
	}
	// Claimed rows are not claimed again while their lease runs.
	if msgs, _ := b.q.Claim(context.Background(), 10); len(msgs) != 0 {
		t.Fatalf("claimed %d rows twice", len(msgs))
	}
	b.clock.advance(time.Minute)
	if msgs, _ := b.q.Claim(context.Background(), 10); len(msgs) != 1 || msgs[0].EventID != ids[2] {
		t.Fatalf("after its time came, claimed %+v, want %s", msgs, ids[2])
	}
}

// TestStaleClaimerCannotSettleAReclaimedRow: a claimer whose lease ran out while it worked holds
// a claim token (claimed_at) that no longer owns the row; its retry, return or defer must leave
// the row to the claimer that took it over, whose own settle then applies.
func TestStaleClaimerCannotSettleAReclaimedRow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, kind := range []delivery.Disposition{delivery.Retry, delivery.Return, delivery.Defer, delivery.DeadLetter} {
		t.Run(kind.String(), func(t *testing.T) {
			t.Parallel()
			b := setup(t, 5)
			ids := b.enqueue(t, reindex)
			stale, err := b.q.Claim(ctx, 10)
			if err != nil || len(stale) != 1 {
				t.Fatalf("first claim: %d %v", len(stale), err)
			}
			b.clock.advance(outbox.ClaimLeaseDefault)
			owner, err := b.q.Claim(ctx, 10)
			if err != nil || len(owner) != 1 {
				t.Fatalf("reclaim: %d %v", len(owner), err)
			}
			settle := func(m delivery.Message) {
				t.Helper()
				r := delivery.Result{Msg: m, Kind: kind, Err: errors.New("handler failed"), Until: b.clock.now().Add(time.Hour)}
				if err := b.q.Settle(ctx, []delivery.Result{r}); err != nil {
					t.Fatal(err)
				}
			}
			settle(stale[0])
			if r := b.row(t, ids[0]); r.Status != "processing" || r.ClaimedAt.Int64 != b.clock.now().UnixMilli() || r.Attempts != 1 {
				t.Fatalf("after the stale claimer's %v: %+v, want still processing under the new claim", kind, r)
			}
			settle(owner[0])
			if r := b.row(t, ids[0]); r.Status == "processing" || r.ClaimedAt.Valid {
				t.Fatalf("after the owner's %v: %+v, want settled", kind, r)
			}
		})
	}
}

// TestClaimReclaimsExpiredLease: a worker that claimed rows and died leaves them processing; they
// are claimed again once claimed_at is 600 s old, the abandoned delivery counted as an attempt.
func TestClaimReclaimsExpiredLease(t *testing.T) {
	t.Parallel()
	b := setup(t, 5)
	ids := b.enqueue(t, reindex)
	if msgs, _ := b.q.Claim(context.Background(), 10); len(msgs) != 1 {
		t.Fatal("first claim failed")
	}
	// The claimer dies here. Another worker finds nothing before the lease ends…
	b.clock.advance(outbox.ClaimLeaseDefault - time.Millisecond)
	if msgs, _ := b.q.Claim(context.Background(), 10); len(msgs) != 0 {
		t.Fatal("reclaimed before the lease expired")
	}
	// …and the row once it has.
	b.clock.advance(time.Millisecond)
	msgs, err := b.q.Claim(context.Background(), 10)
	if err != nil || len(msgs) != 1 || msgs[0].EventID != ids[0] || msgs[0].Attempt != 2 {
		t.Fatalf("after the lease: %+v (err %v), want the row again as delivery 2", msgs, err)
	}
}

func TestDispatchesToEveryHandlerOfTheType(t *testing.T) {
	t.Parallel()
	b := setup(t, 5)
	e := b.engine(t, nil,
		b.handler("a", nil, "SearchReindexRequested"),
		b.handler("b", nil, "SearchReindexRequested", "PosterSynced"),
		b.handler("c", nil, "PosterSynced"))
	ids := b.enqueue(t, reindex, posterSynced())
	b.deliver(t, e)
	want := map[string]int{"a/" + ids[0]: 1, "b/" + ids[0]: 1, "c/" + ids[0]: 0, "a/" + ids[1]: 0, "b/" + ids[1]: 1, "c/" + ids[1]: 1}
	for k, n := range want {
		h, id, _ := strings.Cut(k, "/")
		if got := b.calls.count(h, id); got != n {
			t.Errorf("%s ran %d times, want %d", k, got, n)
		}
	}
	for _, id := range ids {
		if r := b.row(t, id); r.Status != "done" || r.ClaimedAt.Valid {
			t.Errorf("row %s: %+v, want done", id, r)
		}
		if st, _, _ := b.ledgerRow(t, id, "b"); st != "done" {
			t.Errorf("ledger %s/b = %q, want done", id, st)
		}
	}
}

func TestLedgerDoneSkipsHandler(t *testing.T) {
	t.Parallel()
	b := setup(t, 5)
	e := b.engine(t, nil, b.handler("a", nil, "SearchReindexRequested"), b.handler("b", nil, "SearchReindexRequested"))
	ids := b.enqueue(t, reindex)
	if _, err := b.s.write.Exec(`INSERT INTO processed_events (event_id, handler, status, started_at, processed_at) VALUES (?, 'a', 'done', 1, 2)`, ids[0]); err != nil {
		t.Fatal(err)
	}
	b.deliver(t, e)
	if b.calls.count("a", ids[0]) != 0 || b.calls.count("b", ids[0]) != 1 {
		t.Fatalf("a ran %d, b ran %d; want 0 and 1", b.calls.count("a", ids[0]), b.calls.count("b", ids[0]))
	}
	if r := b.row(t, ids[0]); r.Status != "done" {
		t.Fatalf("row %+v", r)
	}
}

// TestFreshClaimDefersAndLeaseTakeOver: a live claim held elsewhere defers the event to the
// claim's expiry without spending an attempt; a claim older than 1800 s is taken over.
func TestFreshClaimDefersAndLeaseTakeOver(t *testing.T) {
	t.Parallel()
	b := setup(t, 5)
	e := b.engine(t, nil, b.handler("a", nil, "SearchReindexRequested"))
	ids := b.enqueue(t, reindex)
	claimedAt := b.clock.now().UnixMilli()
	if _, err := b.s.write.Exec(`INSERT INTO processed_events (event_id, handler, status, started_at) VALUES (?, 'a', 'in_progress', ?)`, ids[0], claimedAt); err != nil {
		t.Fatal(err)
	}
	b.clock.advance(delivery.LedgerLeaseDefault - time.Second)
	b.deliver(t, e)
	r := b.row(t, ids[0])
	wantUntil := claimedAt + delivery.LedgerLeaseDefault.Milliseconds()
	if b.calls.count("a", ids[0]) != 0 || r.Status != "pending" || r.Attempts != 0 || r.NextAttemptAt != wantUntil {
		t.Fatalf("held claim: ran %d, row %+v; want not run, pending, attempts 0, due %d", b.calls.count("a", ids[0]), r, wantUntil)
	}
	b.clock.advance(time.Second)
	if n := b.deliver(t, e); n != 1 {
		t.Fatalf("deferred row not redelivered at the lease expiry (claimed %d)", n)
	}
	if b.calls.count("a", ids[0]) != 1 || b.row(t, ids[0]).Status != "done" {
		t.Fatalf("after take-over: ran %d, row %+v", b.calls.count("a", ids[0]), b.row(t, ids[0]))
	}
	if st, started, _ := b.ledgerRow(t, ids[0], "a"); st != "done" || started != b.clock.now().UnixMilli() {
		t.Fatalf("ledger after take-over: %s started %d", st, started)
	}
	var takeovers int
	mustScan(t, b.s.read.QueryRow(`SELECT takeovers FROM processed_events WHERE event_id = ?`, ids[0]), &takeovers)
	if takeovers != 1 {
		t.Fatalf("takeovers = %d, want 1", takeovers)
	}
}

// TestStaleOwnerCannotClobberNewerClaim: marks carry the claim's started_at token; once another
// delivery took the claim over, the old owner's done or release changes nothing.
func TestStaleOwnerCannotClobberNewerClaim(t *testing.T) {
	t.Parallel()
	b := setup(t, 5)
	ctx := context.Background()
	l := b.s.Ledger()
	key := []delivery.Key{{EventID: uuid.NewString(), Handler: "a"}}
	t0 := b.clock.now()
	old, err := l.Claim(ctx, t0, delivery.LedgerLeaseDefault, key)
	if err != nil || old[0].State != delivery.Acquired {
		t.Fatalf("first claim %+v %v", old, err)
	}
	t1 := t0.Add(delivery.LedgerLeaseDefault + time.Millisecond)
	newer, err := l.Claim(ctx, t1, delivery.LedgerLeaseDefault, key)
	if err != nil || newer[0].State != delivery.Acquired || newer[0].Token == old[0].Token {
		t.Fatalf("take-over %+v %v", newer, err)
	}
	for _, done := range []bool{true, false} {
		if err := l.Settle(ctx, t1, []delivery.Mark{{Key: key[0], Token: old[0].Token, Done: done}}); err != nil {
			t.Fatal(err)
		}
		st, started, ok := b.ledgerRow(t, key[0].EventID, "a")
		if !ok || st != "in_progress" || started != newer[0].Token {
			t.Fatalf("stale mark (done=%v) changed the newer claim: %s %d %v", done, st, started, ok)
		}
	}
	if err := l.Settle(ctx, t1, []delivery.Mark{{Key: key[0], Token: newer[0].Token, Done: true}}); err != nil {
		t.Fatal(err)
	}
	if st, _, _ := b.ledgerRow(t, key[0].EventID, "a"); st != "done" {
		t.Fatalf("owner's mark not applied: %s", st)
	}
}

// TestTransientFailureReleasesAndRetries: a failing handler's claim is released, the row spends
// an attempt, waits the backoff and keeps the real error; the next delivery runs it again.
func TestTransientFailureReleasesAndRetries(t *testing.T) {
	t.Parallel()
	b := setup(t, 5)
	fail := true
	e := b.engine(t, nil,
		b.handler("ok", nil, "SearchReindexRequested"),
		delivery.Handler{Name: "flaky", Types: []string{"SearchReindexRequested"}, Handle: func(_ context.Context, ev delivery.Envelope) error {
			b.calls.add("flaky", ev.EventID)
			if fail {
				return errors.New("tmdb: connection refused")
			}
			return nil
		}})
	ids := b.enqueue(t, reindex)
	now := b.clock.now()
	b.deliver(t, e)
	r := b.row(t, ids[0])
	if r.Status != "pending" || r.Attempts != 1 || r.NextAttemptAt != now.Add(5*time.Second).UnixMilli() ||
		!strings.Contains(r.LastError.String, "flaky: tmdb: connection refused") {
		t.Fatalf("after a transient failure: %+v", r)
	}
	if _, _, ok := b.ledgerRow(t, ids[0], "flaky"); ok {
		t.Fatal("failed handler's ledger claim was not released")
	}
	if st, _, _ := b.ledgerRow(t, ids[0], "ok"); st != "done" {
		t.Fatal("the handler that succeeded is not marked done")
	}
	fail = false
	b.clock.advance(5 * time.Second)
	b.deliver(t, e)
	if b.calls.count("flaky", ids[0]) != 2 || b.calls.count("ok", ids[0]) != 1 {
		t.Fatalf("flaky ran %d (want 2), ok ran %d (want 1)", b.calls.count("flaky", ids[0]), b.calls.count("ok", ids[0]))
	}
	if r := b.row(t, ids[0]); r.Status != "done" {
		t.Fatalf("row %+v", r)
	}
}

// failingLedger cannot be read.
type failingLedger struct{}

func (failingLedger) Claim(context.Context, time.Time, time.Duration, []delivery.Key) ([]delivery.Claim, error) {
	return nil, errors.New("disk I/O error")
}

func (failingLedger) Renew(context.Context, time.Time, []delivery.Mark) ([]bool, error) {
	return nil, errors.New("disk I/O error")
}

func TestLedgerReadErrorSkipsHandlersAndNacks(t *testing.T) {
	t.Parallel()
	b := setup(t, 5)
	e := b.engine(t, failingLedger{}, b.handler("a", nil, "SearchReindexRequested"))
	ids := b.enqueue(t, reindex)
	b.deliver(t, e)
	r := b.row(t, ids[0])
	if b.calls.count("a", ids[0]) != 0 || r.Status != "pending" || r.Attempts != 1 || !strings.Contains(r.LastError.String, "disk I/O error") {
		t.Fatalf("ran %d, row %+v; want skipped and nacked with the ledger error", b.calls.count("a", ids[0]), r)
	}
}

// TestDeadLetterAtMaxAttempts: with 3 attempts, the row is retried after 5 s and 10 s and then
// dead-lettered, keeping the last error.
func TestDeadLetterAtMaxAttempts(t *testing.T) {
	t.Parallel()
	b := setup(t, 3)
	e := b.engine(t, nil, b.handler("a", errors.New("remote said 503"), "SearchReindexRequested"))
	ids := b.enqueue(t, reindex)
	for attempt, wait := range []time.Duration{5 * time.Second, 10 * time.Second} {
		now := b.clock.now()
		b.deliver(t, e)
		r := b.row(t, ids[0])
		if r.Status != "pending" || r.Attempts != attempt+1 || r.NextAttemptAt != now.Add(wait).UnixMilli() {
			t.Fatalf("after attempt %d: %+v, want pending, due in %s", attempt+1, r, wait)
		}
		b.clock.advance(wait - time.Millisecond)
		if n := b.deliver(t, e); n != 0 {
			t.Fatalf("redelivered before the backoff ended")
		}
		b.clock.advance(time.Millisecond)
	}
	b.deliver(t, e)
	r := b.row(t, ids[0])
	if r.Status != "dead_lettered" || r.Attempts != 3 || !strings.Contains(r.LastError.String, "remote said 503") {
		t.Fatalf("after 3 attempts: %+v", r)
	}
	b.clock.advance(time.Hour)
	if n := b.deliver(t, e); n != 0 || b.calls.count("a", ids[0]) != 3 {
		t.Fatalf("dead-lettered row delivered again (%d calls)", b.calls.count("a", ids[0]))
	}
}

func TestPermanentErrorDeadLettersAtOnce(t *testing.T) {
	t.Parallel()
	b := setup(t, 5)
	e := b.engine(t, nil, b.handler("a", domain.Permanent(errors.New("remote said 404")), "SearchReindexRequested"))
	ids := b.enqueue(t, reindex)
	b.deliver(t, e)
	r := b.row(t, ids[0])
	if r.Status != "dead_lettered" || !strings.Contains(r.LastError.String, "remote said 404") {
		t.Fatalf("after a permanent error: %+v", r)
	}
}

func TestUndecodableAndUnknownEventsDeadLetter(t *testing.T) {
	t.Parallel()
	b := setup(t, 5)
	e := b.engine(t, nil, b.handler("a", nil, "PosterSynced"))
	for _, c := range []struct{ typ, payload, want string }{
		{"PosterSynced", `{not json`, "decode payload"},
		{"PosterSynced", `{"type":"PosterSynced","data":{"movie_id":"nope"}}`, "decode PosterSynced"},
		{"Teleported", `{"type":"Teleported","data":{}}`, `unknown event type "Teleported"`},
	} {
		id := uuid.NewString()
		if _, err := b.s.write.Exec(`INSERT INTO event_queue (event_id, event_type, payload) VALUES (?, ?, ?)`, id, c.typ, c.payload); err != nil {
			t.Fatal(err)
		}
		b.clock.set(time.Now()) // a foreign row is stamped by SQLite's wall clock
		b.deliver(t, e)
		r := b.row(t, id)
		if r.Status != "dead_lettered" || !strings.Contains(r.LastError.String, c.want) {
			t.Errorf("%s %s: %+v, want dead_lettered with %q", c.typ, c.payload, r, c.want)
		}
	}
	if n := len(b.calls.n); n != 0 {
		t.Fatalf("handlers ran %d times for undecodable events", n)
	}
}

// TestNullEventIDIsHandledWithoutDedup: a foreign writer's row has no event id; its handlers run
// and no ledger row is written.
func TestNullEventIDIsHandledWithoutDedup(t *testing.T) {
	t.Parallel()
	b := setup(t, 5)
	e := b.engine(t, nil, b.handler("a", nil, "SearchReindexRequested"))
	if _, err := b.s.write.Exec(`INSERT INTO event_queue (event_type, payload) VALUES ('SearchReindexRequested', '{"type":"SearchReindexRequested"}')`); err != nil {
		t.Fatal(err)
	}
	b.clock.set(time.Now()) // a foreign row is stamped by SQLite's wall clock
	b.deliver(t, e)
	var status string
	var ledgerRows int
	mustScan(t, b.s.read.QueryRow(`SELECT status FROM event_queue`), &status)
	mustScan(t, b.s.read.QueryRow(`SELECT count(*) FROM processed_events`), &ledgerRows)
	if b.calls.count("a", "") != 1 || status != "done" || ledgerRows != 0 {
		t.Fatalf("ran %d, status %s, ledger rows %d; want 1, done, 0", b.calls.count("a", ""), status, ledgerRows)
	}
}

func TestPruneLedger(t *testing.T) {
	t.Parallel()
	b := setup(t, 5)
	now := b.clock.now()
	day := 24 * time.Hour
	for i, age := range []time.Duration{31 * day, 30*day + time.Second, 29 * day, time.Hour} {
		if _, err := b.s.write.Exec(`INSERT INTO processed_events (event_id, handler, status, started_at, processed_at) VALUES (?, 'a', 'done', ?, ?)`,
			fmt.Sprint(i), now.Add(-age).UnixMilli(), now.Add(-age).UnixMilli()); err != nil {
			t.Fatal(err)
		}
	}
	n, err := b.s.Ledger().Prune(context.Background(), now, 30*day)
	if err != nil || n != 2 {
		t.Fatalf("pruned %d (err %v), want the 2 rows older than 30 days", n, err)
	}
	var left int
	mustScan(t, b.s.read.QueryRow(`SELECT count(*) FROM processed_events`), &left)
	if left != 2 {
		t.Fatalf("%d rows left, want 2", left)
	}
}

// TestLedgerClaimAcquiresARepeatedKeyOnce: two copies of one message in one batch (a bus can
// deliver that) must not both own the claim.
func TestLedgerClaimAcquiresARepeatedKeyOnce(t *testing.T) {
	t.Parallel()
	b := setup(t, 5)
	k := delivery.Key{EventID: uuid.NewString(), Handler: "a"}
	cs, err := b.s.Ledger().Claim(context.Background(), b.clock.now(), delivery.LedgerLeaseDefault, []delivery.Key{k, k})
	if err != nil {
		t.Fatal(err)
	}
	if cs[0].State != delivery.Acquired || cs[1].State != delivery.Held {
		t.Fatalf("states %v, %v; want acquired then held", cs[0].State, cs[1].State)
	}
}

// TestLedgerClaimMixesNewAndExistingKeys: a batch of only new keys takes the insert-only path;
// one new key among keys with rows must still see each row as it was (done skipped, a live claim
// held, an expired one taken over) and insert the new one, and a batch of only new keys after it
// must be acquired with its rows written.
func TestLedgerClaimMixesNewAndExistingKeys(t *testing.T) {
	t.Parallel()
	b := setup(t, 5)
	ctx := context.Background()
	l := b.s.Ledger()
	lease := delivery.LedgerLeaseDefault
	key := func(h string) delivery.Key { return delivery.Key{EventID: uuid.NewString(), Handler: h} }
	done, live, stale := key("done"), key("live"), key("stale")
	first, err := l.Claim(ctx, b.clock.now(), lease, []delivery.Key{done, live, stale})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range first {
		if c.State != delivery.Acquired || c.TookOver {
			t.Fatalf("new key %s: %+v, want acquired, not taken over", c.Handler, c)
		}
	}
	if err := l.Settle(ctx, b.clock.now(), []delivery.Mark{{Key: done, Token: first[0].Token, Done: true}}); err != nil {
		t.Fatal(err)
	}
	b.clock.advance(lease / 2)
	if _, err := l.Renew(ctx, b.clock.now(), []delivery.Mark{{Key: live, Token: first[1].Token}}); err != nil {
		t.Fatal(err)
	}
	b.clock.advance(lease/2 + time.Second) // stale's claim has expired, live's has not
	fresh := key("fresh")
	cs, err := l.Claim(ctx, b.clock.now(), lease, []delivery.Key{done, fresh, live, stale})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		state    delivery.State
		tookOver bool
	}{{delivery.Done, false}, {delivery.Acquired, false}, {delivery.Held, false}, {delivery.Acquired, true}}
	for i, w := range want {
		if cs[i].State != w.state || cs[i].TookOver != w.tookOver {
			t.Errorf("%s: state %v took over %v; want %v, %v", cs[i].Handler, cs[i].State, cs[i].TookOver, w.state, w.tookOver)
		}
	}
	var rows int
	mustScan(t, b.s.read.QueryRow(`SELECT count(*) FROM processed_events WHERE event_id = ? AND status = 'in_progress' AND started_at = ?`,
		fresh.EventID, cs[1].Token), &rows)
	if rows != 1 {
		t.Fatalf("the new key's claim row: %d rows, want 1", rows)
	}
	again, err := l.Claim(ctx, b.clock.now(), lease, []delivery.Key{key("x"), key("y")})
	if err != nil || again[0].State != delivery.Acquired || again[1].State != delivery.Acquired {
		t.Fatalf("a batch of new keys: %+v, %v", again, err)
	}
}

func TestEventsSinceCountsOnlyNewRows(t *testing.T) {
	t.Parallel()
	b := setup(t, 5)
	b.enqueue(t, reindex, posterSynced(), posterSynced())
	counts, last, err := b.s.EventsSince(context.Background(), 0)
	if err != nil || counts["PosterSynced"] != 2 || counts["SearchReindexRequested"] != 1 || last != 3 {
		t.Fatalf("first read: %v last %d err %v", counts, last, err)
	}
	b.enqueue(t, reindex)
	counts, last, err = b.s.EventsSince(context.Background(), last)
	if err != nil || len(counts) != 1 || counts["SearchReindexRequested"] != 1 || last != 4 {
		t.Fatalf("second read: %v last %d err %v", counts, last, err)
	}
}

// TestIDsStayMonotonicAcrossAPurge: purging every done row must not let new rows reuse ids, or
// the enqueued-events metric (which counts rows above the last id it saw) stops counting and a
// row id names another row.
func TestIDsStayMonotonicAcrossAPurge(t *testing.T) {
	t.Parallel()
	b := setup(t, 5)
	ctx := context.Background()
	b.enqueue(t, reindex, reindex, reindex)
	_, last, err := b.s.EventsSince(ctx, 0)
	if err != nil || last != 3 {
		t.Fatalf("first read: last %d err %v", last, err)
	}
	if _, err := b.s.write.Exec(`UPDATE event_queue SET status = 'done'`); err != nil {
		t.Fatal(err)
	}
	b.clock.advance(8 * 24 * time.Hour)
	if _, err := b.s.PurgeDone(ctx, b.clock.now(), 7*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	ids := b.enqueue(t, posterSynced())
	counts, _, err := b.s.EventsSince(ctx, last)
	if err != nil || counts["PosterSynced"] != 1 {
		t.Fatalf("after the purge the new event is not counted: %v (err %v)", counts, err)
	}
	var id int64
	mustScan(t, b.s.read.QueryRow(`SELECT id FROM event_queue WHERE event_id = ?`, ids[0]), &id)
	if id <= last {
		t.Fatalf("new row got id %d, reusing an id at or below %d", id, last)
	}
}

// TestAbandonedDeliveriesCountAsAttempts: a row reclaimed after its worker died counts the
// abandoned delivery as an attempt, and after MaxAttempts such crashes it is dead-lettered with
// a last_error that says why, instead of being claimed again for ever.
func TestAbandonedDeliveriesCountAsAttempts(t *testing.T) {
	t.Parallel()
	const maxAttempts = 3
	b := setup(t, maxAttempts)
	ctx := context.Background()
	var counted atomic.Int32
	q := b.s.Queue(outbox.QueueConfig{MaxAttempts: maxAttempts, Logger: testLogger(t), OnDeadLetter: func() { counted.Add(1) }})
	t.Cleanup(func() { q.Close() })
	id := b.enqueue(t, reindex)[0]
	for n := 1; n <= maxAttempts; n++ {
		msgs, err := q.Claim(ctx, 10)
		if err != nil || len(msgs) != 1 || msgs[0].Attempt != n {
			t.Fatalf("claim %d: %+v %v; want the event as delivery %d", n, msgs, err, n)
		}
		b.clock.advance(outbox.ClaimLeaseDefault) // the worker dies holding the claim
	}
	msgs, err := q.Claim(ctx, 10)
	if err != nil || len(msgs) != 0 {
		t.Fatalf("after %d abandoned deliveries a claim got %d messages (%v); want none", maxAttempts, len(msgs), err)
	}
	if counted.Load() != 1 {
		t.Errorf("dead letter counted %d times, want once", counted.Load())
	}
	r := b.row(t, id)
	if r.Status != "dead_lettered" || r.Attempts != maxAttempts || !strings.Contains(r.LastError.String, "died or stalled") {
		t.Fatalf("row %+v; want dead-lettered after %d attempts with the crash named", r, maxAttempts)
	}
}

// TestDeferAfterAReclaimSpendsNothing: a reclaim spends an attempt, a defer does not.
func TestDeferAfterAReclaimSpendsNothing(t *testing.T) {
	t.Parallel()
	b := setup(t, 5)
	ctx := context.Background()
	id := b.enqueue(t, reindex)[0]
	if msgs, err := b.q.Claim(ctx, 10); err != nil || len(msgs) != 1 {
		t.Fatalf("claim: %v %v", msgs, err)
	}
	b.clock.advance(outbox.ClaimLeaseDefault)
	msgs, err := b.q.Claim(ctx, 10)
	if err != nil || len(msgs) != 1 || msgs[0].Attempt != 2 {
		t.Fatalf("reclaim: %+v %v; want delivery 2", msgs, err)
	}
	if r := b.row(t, id); r.Attempts != 1 || !strings.Contains(r.LastError.String, "abandoned") {
		t.Fatalf("reclaimed row %+v; want one attempt spent on the abandoned delivery", r)
	}
	if err := b.q.Settle(ctx, []delivery.Result{{Msg: msgs[0], Kind: delivery.Defer, Until: b.clock.now().Add(time.Minute)}}); err != nil {
		t.Fatal(err)
	}
	if r := b.row(t, id); r.Attempts != 1 || r.Status != "pending" {
		t.Fatalf("deferred row %+v; want pending with the one attempt", r)
	}
}
