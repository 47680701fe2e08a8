package nats

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/delivery/deliverytest"
)

// countingSource counts the messages a source hands out, per event id.
type countingSource struct {
	delivery.Source
	mu     sync.Mutex
	claims map[string]int
}

func (c *countingSource) Claim(ctx context.Context, max int) ([]delivery.Message, error) {
	msgs, err := c.Source.Claim(ctx, max)
	c.mu.Lock()
	for _, m := range msgs {
		c.claims[m.EventID]++
	}
	c.mu.Unlock()
	return msgs, err
}

func (c *countingSource) count(id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.claims[id]
}

type coreWorker struct {
	conn     *Conn
	consumer *CoreConsumer
	counted  *countingSource
}

// startCoreWorker joins the "worker" queue group on its own connection and runs a pump.
func startCoreWorker(t *testing.T, url string, store *sqlite.Store, hs []delivery.Handler, cfg delivery.Config, log *slog.Logger) coreWorker {
	t.Helper()
	conn := dial(t, url, log)
	c, err := SubscribeCore(conn, store.Ledger(), CoreConfig{Prefix: testPrefix, Group: "worker", MaxAttempts: 3, WaitMax: time.Second, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	run(t, "core consumer", c.Run)              // registered first, so it stops after the pump
	if err := conn.NATS().Flush(); err != nil { // the subscription is registered before anything is published
		t.Fatal(err)
	}
	counted := &countingSource{Source: c, claims: map[string]int{}}
	startPump(t, counted, store.Ledger(), hs, cfg, log)
	return coreWorker{conn: conn, consumer: c, counted: counted}
}

// settled reports whether everything the server sent this worker has been claimed.
func (w coreWorker) settled(t *testing.T) bool {
	if err := w.conn.NATS().Flush(); err != nil { // whatever the server routed here has arrived
		t.Fatal(err)
	}
	if n, _, _ := w.consumer.sub.Pending(); n > 0 {
		return false
	}
	return len(w.consumer.in) == 0 && w.consumer.stash.len() == 0
}

func TestCoreModeDeliversEachEventToOneWorkerOfTheGroup(t *testing.T) {
	t.Parallel()
	log, _ := newLogger(t)
	url := embeddedServer(t)
	store := openStore(t)
	db := rawDB(t, store)
	rec := newRecorder()
	w1 := startCoreWorker(t, url, store, rec.handlers("w1"), delivery.Config{}, log)
	w2 := startCoreWorker(t, url, store, rec.handlers("w2"), delivery.Config{}, log)
	ids := enqueue(t, store, 200)
	startRelay(t, dial(t, url, log), store, RelayConfig{Mode: Core, Logger: log})

	deliverytest.Eventually(t, 20*time.Second, "every event handled, its row done, and both workers idle", func() bool {
		return rec.handledAll(ids) && w1.settled(t) && w2.settled(t) &&
			queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status = 'done'`) == len(ids)
	})
	rec.checkOnce(t, ids)
	shared := [2]int{}
	for _, id := range ids {
		c1, c2 := w1.counted.count(id), w2.counted.count(id)
		if c1+c2 != 1 {
			t.Fatalf("event %s reached worker 1 %d times and worker 2 %d times, want once in all", id, c1, c2)
		}
		shared[0] += c1
		shared[1] += c2
	}
	if shared[0] == 0 || shared[1] == 0 {
		t.Fatalf("the queue group did not share the work: %v", shared)
	}
}

func TestCoreModeLedgerStopsARepeatedEvent(t *testing.T) {
	t.Parallel()
	log, _ := newLogger(t)
	url := embeddedServer(t)
	store := openStore(t)
	rec := newRecorder()
	w := startCoreWorker(t, url, store, rec.handlers("w"), delivery.Config{}, log)
	pub := dial(t, url, log)
	const id = "0190a1b2-0000-7000-8000-000000000001"
	for range 2 { // the relay published it, crashed before marking it done, and published it again
		m := natsgo.NewMsg(testPrefix + ".search.reindex.requested")
		m.Data = []byte(`{"type":"SearchReindexRequested"}`)
		m.Header.Set(jetstream.MsgIDHeader, id)
		if err := pub.NATS().PublishMsg(m); err != nil {
			t.Fatal(err)
		}
	}
	deliverytest.Eventually(t, 10*time.Second, "both copies claimed and handled", func() bool {
		return w.counted.count(id) == 2 && rec.handledAll([]string{id}) && w.settled(t)
	})
	rec.checkOnce(t, []string{id})
}

func TestCoreModeRetriesInProcessUpToMaxAttempts(t *testing.T) {
	t.Parallel()
	log, sink := newLogger(t)
	url := embeddedServer(t)
	store := openStore(t)
	rec := newRecorder()
	var mu sync.Mutex
	failing := map[string]bool{}
	rec.fail = func(e delivery.Envelope) error {
		mu.Lock()
		defer mu.Unlock()
		if failing[e.EventID] || e.Attempt == 1 {
			return errors.New("remote unavailable")
		}
		return nil
	}
	startCoreWorker(t, url, store, rec.handlers("w"), delivery.Config{BackoffBase: 20 * time.Millisecond}, log)
	ids := enqueue(t, store, 2)
	mu.Lock()
	failing[ids[1]] = true // never recovers
	mu.Unlock()
	startRelay(t, dial(t, url, log), store, RelayConfig{Mode: Core, Logger: log})

	db := rawDB(t, store)
	deliverytest.Eventually(t, 10*time.Second, "the first event handled on its retry, the second exhausted", func() bool {
		return rec.handledAll(ids[:1]) && len(sink.find("event dead-lettered in the outbox")) == 1
	})
	rec.mu.Lock()
	first, second := rec.attempts[ids[0]], rec.attempts[ids[1]]
	rec.mu.Unlock()
	if !slices.Equal(first, []int{1, 2}) || !slices.Equal(second, []int{1, 2, 3}) {
		t.Fatalf("attempts %v and %v, want [1 2] and [1 2 3]", first, second)
	}
	if line := sink.find("event dead-lettered in the outbox")[0]; line["event_id"] != ids[1] || line["level"] != "ERROR" {
		t.Fatalf("exhausted line %v, want ERROR with event_id %s", line, ids[1])
	}
	if n := queryInt(t, db, `SELECT count(*) FROM event_queue WHERE event_id = ? AND status = 'dead_lettered' AND attempts = 3
		AND last_error LIKE '%remote unavailable%'`, ids[1]); n != 1 {
		t.Fatal("the exhausted event's row is not dead-lettered after 3 attempts with its error")
	}
	if n := queryInt(t, db, `SELECT count(*) FROM event_queue WHERE event_id = ? AND status = 'done' AND attempts = 1`, ids[0]); n != 1 {
		t.Fatal("the event handled on its retry is not done with one failed attempt")
	}
}

// TestCoreShutdownHandsBackWhatNoPumpClaimed: a core worker that leaves the queue group hands
// the events it received but never started back to the relay, which publishes them again at
// once to the workers still there, without spending an attempt, instead of after the re-relay
// horizon (minutes).
func TestCoreShutdownHandsBackWhatNoPumpClaimed(t *testing.T) {
	t.Parallel()
	const events = 3
	log, sink := newLogger(t)
	url := embeddedServer(t)
	store := openStore(t)
	db := rawDB(t, store)
	conn := dial(t, url, log)
	leaving, err := SubscribeCore(conn, store.Ledger(), CoreConfig{Prefix: testPrefix, Group: "worker", WaitMax: time.Second, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	stop := run(t, "leaving consumer", leaving.Run)
	if err := conn.NATS().Flush(); err != nil {
		t.Fatal(err)
	}
	startRelay(t, conn, store, RelayConfig{Mode: Core, Logger: log})
	ids := enqueue(t, store, events)
	// The only member gets every event, and no pump claims them.
	deliverytest.Eventually(t, 10*time.Second, "every event relayed to the leaving worker", func() bool {
		return queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status = 'relayed'`) == events && len(leaving.in) == events
	})
	rec := newRecorder()
	startCoreWorker(t, url, store, rec.handlers("staying"), delivery.Config{}, log)
	stop()
	deliverytest.Eventually(t, 10*time.Second, "every event handled by the worker that stayed", func() bool {
		return rec.handledAll(ids) && queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status = 'done'`) == events
	})
	rec.checkOnce(t, ids)
	if n := queryInt(t, db, `SELECT count(*) FROM event_queue WHERE attempts = 0 AND relays = 2`); n != events {
		t.Errorf("%d of %d rows relayed twice without an attempt spent", n, events)
	}
	if got := sink.find("events received but not started handed back to the relay at shutdown"); len(got) != 1 || got[0]["count"] != "3" {
		t.Errorf("hand-back logged as %v, want once with count 3", got)
	}
}

// supersedingSettler answers every outcome as superseded (or not): a later relay round owns the
// row, or the event is done.
type supersedingSettler struct{ superseded bool }

func (o supersedingSettler) SettleOutcomes(_ context.Context, _ time.Time, _ []delivery.Mark, outcomes []delivery.RowOutcome) ([]bool, error) {
	s := make([]bool, len(outcomes))
	for i := range s {
		s[i] = o.superseded
	}
	return s, nil
}

// TestCoreStaleRoundIsNeitherCountedNorRetried: a copy from an earlier relay round whose
// outcome the outbox reports superseded (the relay published the event again after its horizon)
// is dropped: its last failed attempt is no dead letter (no count, no error line), and a failed
// attempt is not retried in process, since the later round's delivery decides. The same results
// not superseded are counted and retried.
func TestCoreStaleRoundIsNeitherCountedNorRetried(t *testing.T) {
	t.Parallel()
	url := embeddedServer(t)
	for _, superseded := range []bool{true, false} {
		log, sink := newLogger(t)
		var dead atomic.Int32
		c, err := SubscribeCore(dial(t, url, log), supersedingSettler{superseded}, CoreConfig{Prefix: testPrefix,
			Group: "worker", MaxAttempts: 2, Logger: log, OnDeadLetter: func() { dead.Add(1) }})
		if err != nil {
			t.Fatal(err)
		}
		fail := errors.New("remote answered 503")
		results := []delivery.Result{
			{Msg: delivery.Message{EventID: uuid.NewString(), Type: "SearchReindexRequested", Attempt: 2}, Kind: delivery.Retry, Err: fail},
			{Msg: delivery.Message{EventID: uuid.NewString(), Type: "SearchReindexRequested", Attempt: 1}, Kind: delivery.Retry, Err: fail, Delay: time.Hour},
		}
		if err := c.Settle(context.Background(), results); err != nil {
			t.Fatal(err)
		}
		c.mu.Lock()
		retries := len(c.retries)
		c.mu.Unlock()
		errorLines := 0
		sink.mu.Lock()
		for _, r := range sink.records {
			if r.Level == slog.LevelError {
				errorLines++
			}
		}
		sink.mu.Unlock()
		want := 1
		if superseded {
			want = 0
		}
		if int(dead.Load()) != want || errorLines != want || retries != want {
			t.Errorf("superseded=%v: %d dead letters counted, %d error lines, %d in-process retries; want %d each",
				superseded, dead.Load(), errorLines, retries, want)
		}
	}
}
