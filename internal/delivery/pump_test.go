package delivery_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/adapters/sqlstore"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// worker is one process's view of a shared database: its own store, queue and pump.
type worker struct {
	store *sqlite.Store
	queue *sqlstore.Queue
	pump  *delivery.Pump
	stop  context.CancelFunc
	done  chan struct{}
	err   error // Run's result, once done is closed
}

// shutdown cancels the pump's context and waits for Run to return.
func (w *worker) shutdown(t *testing.T) {
	t.Helper()
	w.stop()
	<-w.done
	if w.err != nil {
		t.Errorf("pump: %v", w.err)
	}
}

// stalled hides the queue's claim extension: the worker behaves like one stopped (SIGSTOP, a
// frozen VM) as far as its claims go, so they expire while its handlers still run.
type stalled struct{ delivery.Source }

func startWorker(t *testing.T, path string, qcfg outbox.QueueConfig, pcfg delivery.PumpConfig, ledger func(*sqlite.Store) delivery.Ledger, hs ...delivery.Handler) *worker {
	return startWorkerOn(t, path, qcfg, pcfg, ledger, nil, hs...)
}

func startWorkerOn(t *testing.T, path string, qcfg outbox.QueueConfig, pcfg delivery.PumpConfig, ledger func(*sqlite.Store) delivery.Ledger,
	wrap func(delivery.Source) delivery.Source, hs ...delivery.Handler) *worker {
	t.Helper()
	s := sqlitetest.Open(t, path)
	var l delivery.Ledger = s.Ledger()
	if ledger != nil {
		l = ledger(s)
	}
	log := deliverytest.Logger(t)
	e, err := delivery.NewEngine(delivery.Config{Logger: log}, l, hs...)
	if err != nil {
		t.Fatal(err)
	}
	qcfg.Logger, pcfg.Logger = log, log
	ctx, stop := context.WithCancel(context.Background())
	w := &worker{store: s, queue: s.Queue(qcfg), stop: stop, done: make(chan struct{})}
	var src delivery.Source = w.queue
	if wrap != nil {
		src = wrap(src)
	}
	w.pump = delivery.NewPump(src, e, pcfg)
	go func() {
		defer close(w.done)
		w.err = w.pump.Run(ctx)
	}()
	t.Cleanup(func() {
		w.shutdown(t)
		w.queue.Close()
	})
	return w
}

func enqueue(t *testing.T, s *sqlite.Store, n int) {
	t.Helper()
	events := make([]domain.Event, n)
	for i := range events {
		events[i] = domain.SearchReindexRequested{}
	}
	if err := s.Enqueue(context.Background(), events...); err != nil {
		t.Fatal(err)
	}
}

func countRows(t *testing.T, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func openDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestPumpBoundsConcurrencyAndDeliversEverything(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "pump.db")
	const limit, events = 3, 40
	var active, peak, calls atomic.Int64
	gate := make(chan struct{})
	var gateOnce sync.Once
	h := delivery.Handler{Name: "count", Types: []string{"SearchReindexRequested"}, Handle: func(context.Context, delivery.Envelope) error {
		n := active.Add(1)
		defer active.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		if n == limit {
			gateOnce.Do(func() { close(gate) })
		}
		<-gate // the first handlers wait until the limit is reached, proving it is reachable
		calls.Add(1)
		return nil
	}}
	w := startWorker(t, path, outbox.QueueConfig{}, delivery.PumpConfig{BatchSize: 10, Concurrency: limit}, nil, h)
	enqueue(t, w.store, events)
	db := openDB(t, path)
	deliverytest.Eventually(t, 30*time.Second, "every event done", func() bool {
		return countRows(t, db, `SELECT count(*) FROM event_queue WHERE status = 'done'`) == events
	})
	if peak.Load() != limit || calls.Load() != events {
		t.Fatalf("peak concurrency %d (want %d), calls %d (want %d)", peak.Load(), limit, calls.Load(), events)
	}
}

// TestPumpShutdownHandsBackUnstartedClaims: when Run's context ends the running handler finishes
// within the grace period and is acked; claimed rows that never started go back to pending at
// once, with no attempt spent and no ledger claim left.
func TestPumpShutdownHandsBackUnstartedClaims(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "stop.db")
	started := make(chan struct{}, 100)
	release := make(chan struct{})
	h := delivery.Handler{Name: "slow", Types: []string{"SearchReindexRequested"}, Handle: func(context.Context, delivery.Envelope) error {
		started <- struct{}{}
		<-release
		return nil
	}}
	w := startWorker(t, path, outbox.QueueConfig{}, delivery.PumpConfig{BatchSize: 10, Concurrency: 1, Grace: time.Minute}, nil, h)
	enqueue(t, w.store, 10)
	<-started
	db := openDB(t, path)
	deliverytest.Eventually(t, 10*time.Second, "all ten claimed", func() bool {
		return countRows(t, db, `SELECT count(*) FROM event_queue WHERE status = 'processing'`) == 10
	})
	w.stop() // the shutdown begins before the running handler returns
	close(release)
	w.shutdown(t)
	if n := len(started); n != 0 {
		t.Fatalf("%d more handlers started after the shutdown began", n)
	}
	done := countRows(t, db, `SELECT count(*) FROM event_queue WHERE status = 'done'`)
	back := countRows(t, db, `SELECT count(*) FROM event_queue WHERE status = 'pending' AND claimed_at IS NULL AND attempts = 0`)
	ledger := countRows(t, db, `SELECT count(*) FROM processed_events WHERE status = 'in_progress'`)
	if done != 1 || back != 9 || ledger != 0 {
		t.Fatalf("after the shutdown: %d done (want 1), %d handed back (want 9), %d ledger claims left (want 0)", done, back, ledger)
	}
}

// TestPumpGraceExpiryReturnsInterruptedWork: a handler still running when the grace period ends
// is cancelled, and its event goes back to pending without spending an attempt.
func TestPumpGraceExpiryReturnsInterruptedWork(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "grace.db")
	started := make(chan struct{}, 10)
	h := delivery.Handler{Name: "stuck", Types: []string{"SearchReindexRequested"}, Handle: func(ctx context.Context, _ delivery.Envelope) error {
		started <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	}}
	w := startWorker(t, path, outbox.QueueConfig{}, delivery.PumpConfig{Concurrency: 1, Grace: 50 * time.Millisecond}, nil, h)
	enqueue(t, w.store, 1)
	<-started
	w.shutdown(t)
	db := openDB(t, path)
	if n := countRows(t, db, `SELECT count(*) FROM event_queue WHERE status = 'pending' AND attempts = 0 AND claimed_at IS NULL`); n != 1 {
		t.Fatal("interrupted event not handed back without an attempt")
	}
}

// spyLedger counts claims found held by another delivery.
type spyLedger struct {
	delivery.Ledger
	held *atomic.Int64
}

func (s spyLedger) Claim(ctx context.Context, now time.Time, lease time.Duration, keys []delivery.Key) ([]delivery.Claim, error) {
	cs, err := s.Ledger.Claim(ctx, now, lease, keys)
	for _, c := range cs {
		if c.State == delivery.Held {
			s.held.Add(1)
		}
	}
	return cs, err
}

// TestTwoWorkersNeverRunAHandlerTwiceAtOnce: two workers share a database; the second judges
// claims by a lease far shorter than the handlers. Worker A claims every row and works through them one at a time
// without extending its claims (it is stalled as far as they go); worker B, started afterwards,
// reclaims A's rows once their claims expire, while A's handlers still run. The ledger must keep every (event, handler) to a single execution.
func TestTwoWorkersNeverRunAHandlerTwiceAtOnce(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "two.db")
	const events = 8
	type span struct{ start, end time.Time }
	var mu sync.Mutex
	runs := map[string][]span{}
	handler := func(name string) delivery.Handler {
		return delivery.Handler{Name: name, Types: []string{"SearchReindexRequested"}, Handle: func(_ context.Context, e delivery.Envelope) error {
			s := span{start: time.Now()}
			time.Sleep(60 * time.Millisecond) // the work: longer than the claim lease
			s.end = time.Now()
			mu.Lock()
			runs[name+"/"+e.EventID] = append(runs[name+"/"+e.EventID], s)
			mu.Unlock()
			return nil
		}}
	}
	var held atomic.Int64
	spy := func(s *sqlite.Store) delivery.Ledger { return spyLedger{Ledger: s.Ledger(), held: &held} }
	// A judges its own claims by an hour's lease, so it never reclaims the rows it holds (on a
	// loaded machine it would, deferring them behind its own ledger claims); B judges them by
	// 20 ms, so it takes them over while A's handlers run.
	db := openDB(t, path)
	a := startWorkerOn(t, path, outbox.QueueConfig{ClaimLease: time.Hour}, delivery.PumpConfig{BatchSize: events / 2, Concurrency: 1}, spy,
		func(s delivery.Source) delivery.Source { return stalled{s} }, handler("h1"), handler("h2"))
	enqueue(t, a.store, events)
	deliverytest.Eventually(t, 10*time.Second, "worker A to claim every row", func() bool {
		return countRows(t, db, `SELECT count(*) FROM event_queue WHERE status = 'pending'`) == 0
	})
	startWorker(t, path, outbox.QueueConfig{ClaimLease: 20 * time.Millisecond}, delivery.PumpConfig{BatchSize: 1, Concurrency: 4}, spy, handler("h1"), handler("h2"))
	deliverytest.Eventually(t, 60*time.Second, "every event done", func() bool {
		return countRows(t, db, `SELECT count(*) FROM event_queue WHERE status = 'done'`) == events &&
			countRows(t, db, `SELECT count(*) FROM processed_events WHERE status = 'done'`) == 2*events
	})
	if held.Load() == 0 {
		t.Fatal("no reclaimed row found its handlers' claims held: the test did not exercise the ledger guard")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(runs) != 2*events {
		t.Fatalf("%d (event, handler) pairs ran, want %d", len(runs), 2*events)
	}
	for k, spans := range runs {
		if len(spans) != 1 {
			t.Errorf("%s ran %d times", k, len(spans))
		}
	}
}

// claimCounter counts the claims of each event id a source hands out.
type claimCounter struct {
	delivery.Source
	mu  sync.Mutex
	ids map[string]int
}

func (c *claimCounter) Claim(ctx context.Context, max int) ([]delivery.Message, error) {
	msgs, err := c.Source.Claim(ctx, max)
	c.mu.Lock()
	for _, m := range msgs {
		c.ids[m.EventID]++
	}
	c.mu.Unlock()
	return msgs, err
}

// ExtendEvery and Extend pass the queue's extension through the counter.
func (c *claimCounter) ExtendEvery() time.Duration { return c.Source.(delivery.Extender).ExtendEvery() }
func (c *claimCounter) Extend(ctx context.Context) error {
	return c.Source.(delivery.Extender).Extend(ctx)
}

// TestLiveWorkerKeepsItsQueuedClaims: a worker claims more rows than it can start at once; rows
// waiting in its local queue past the claim lease must stay its own (their claims are extended),
// not be claimed again by its own next claim, which would make the first run's settle a no-op
// and let a failing event's attempts go uncounted.
func TestLiveWorkerKeepsItsQueuedClaims(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "queued.db")
	const events = 8
	var calls atomic.Int64
	h := delivery.Handler{Name: "slow", Types: []string{"SearchReindexRequested"}, Handle: func(context.Context, delivery.Envelope) error {
		calls.Add(1)
		time.Sleep(100 * time.Millisecond) // the work: the last queued row waits 7 × this, past the lease
		return nil
	}}
	counter := &claimCounter{ids: map[string]int{}}
	w := startWorkerOn(t, path, outbox.QueueConfig{ClaimLease: 300 * time.Millisecond},
		delivery.PumpConfig{BatchSize: events / 2, Concurrency: 1}, nil,
		func(s delivery.Source) delivery.Source { counter.Source = s; return counter }, h)
	enqueue(t, w.store, events)
	db := openDB(t, path)
	deliverytest.Eventually(t, 30*time.Second, "every event done", func() bool {
		return countRows(t, db, `SELECT count(*) FROM event_queue WHERE status = 'done'`) == events
	})
	counter.mu.Lock()
	defer counter.mu.Unlock()
	for id, n := range counter.ids {
		if n != 1 {
			t.Errorf("event %s claimed %d times by its own live worker", id, n)
		}
	}
	if len(counter.ids) != events || calls.Load() != events {
		t.Fatalf("%d events claimed, %d handler runs; want %d of each", len(counter.ids), calls.Load(), events)
	}
}
