package nats

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/domain"
)

func advisories(t *testing.T, conn *Conn, kind string) *natsgo.Subscription {
	t.Helper()
	sub, err := conn.NATS().SubscribeSync("$JS.EVENT.ADVISORY.CONSUMER." + kind + ".EVENTS.worker")
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.NATS().Flush(); err != nil {
		t.Fatal(err)
	}
	return sub
}

// TestConsumerStopsAfterMaxDeliveriesOnTheBackoffSchedule: an event that keeps failing is
// delivered max_deliver times on the shared backoff, then terminated and dead-lettered in its
// outbox row, where `worker events list` shows it.
func TestConsumerStopsAfterMaxDeliveriesOnTheBackoffSchedule(t *testing.T) {
	t.Parallel()
	const maxDeliver = 4
	base := 40 * time.Millisecond
	log, sink := newLogger(t)
	conn := dial(t, embeddedServer(t), log)
	cons := setup(t, newJetStream(t, conn), maxDeliver, 0, log)
	exhausted := advisories(t, conn, "MSG_TERMINATED")
	store := openStore(t)
	db := rawDB(t, store)
	rec := newRecorder()
	rec.fail = func(delivery.Envelope) error { return errors.New("remote unavailable") }
	startConsumer(t, conn, cons, store, rec.handlers("w"), delivery.Config{BackoffBase: base}, log)
	ids := enqueue(t, store, 1)
	startRelay(t, conn, store, RelayConfig{Logger: log})

	if _, err := exhausted.NextMsg(30 * time.Second); err != nil {
		t.Fatalf("no terminated advisory: %v", err)
	}
	rec.mu.Lock()
	attempts, times := rec.attempts[ids[0]], rec.times[ids[0]]
	rec.mu.Unlock()
	if !slices.Equal(attempts, []int{1, 2, 3, 4}) {
		t.Fatalf("deliveries %v, want exactly attempts 1..%d", attempts, maxDeliver)
	}
	for i := 1; i < len(times); i++ {
		if gap, want := times[i].Sub(times[i-1]), domain.ScaledBackoff(base, i); gap < want {
			t.Errorf("delivery %d came %s after the previous one, before its backoff %s", i+1, gap, want)
		}
	}
	lines := sink.find("event dead-lettered: it exhausted max deliveries")
	if len(lines) != 1 || lines[0]["event_id"] != ids[0] || lines[0]["level"] != "ERROR" {
		t.Fatalf("exhausted log lines %v, want one ERROR line with event_id %s", lines, ids[0])
	}
	deliverytest.Eventually(t, 5*time.Second, "the row dead-lettered with the error and the delivery count", func() bool {
		return queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status = 'dead_lettered' AND attempts = ?
			AND last_error LIKE '%remote unavailable%'`, maxDeliver) == 1
	})
}

func TestConsumerTerminatesAPermanentFailure(t *testing.T) {
	t.Parallel()
	log, sink := newLogger(t)
	conn := dial(t, embeddedServer(t), log)
	cons := setup(t, newJetStream(t, conn), 5, 0, log)
	terminated := advisories(t, conn, "MSG_TERMINATED")
	store := openStore(t)
	db := rawDB(t, store)
	rec := newRecorder()
	rec.fail = func(delivery.Envelope) error { return domain.Permanent(errors.New("remote answered 410 Gone")) }
	startConsumer(t, conn, cons, store, rec.handlers("w"), delivery.Config{BackoffBase: time.Millisecond}, log)
	ids := enqueue(t, store, 1)
	startRelay(t, conn, store, RelayConfig{Logger: log})

	if _, err := terminated.NextMsg(30 * time.Second); err != nil {
		t.Fatalf("no terminated advisory: %v", err)
	}
	deliverytest.Eventually(t, 5*time.Second, "nothing left pending", func() bool { return drained(t, cons) })
	rec.mu.Lock()
	attempts := rec.attempts[ids[0]]
	rec.mu.Unlock()
	if !slices.Equal(attempts, []int{1}) {
		t.Fatalf("deliveries %v, want one", attempts)
	}
	lines := sink.find("event terminated: dead-lettered in the outbox")
	if len(lines) != 1 || lines[0]["event_id"] != ids[0] || lines[0]["level"] != "ERROR" {
		t.Fatalf("terminated log lines %v, want one ERROR line with event_id %s", lines, ids[0])
	}
	if n := queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status = 'dead_lettered' AND attempts = 1
		AND last_error LIKE '%410 Gone%'`); n != 1 {
		t.Fatal("the terminated event's row is not dead-lettered with its error")
	}
}

func TestConsumerDefersAHeldLedgerClaimUntilItsLeaseEnds(t *testing.T) {
	t.Parallel()
	lease := time.Second
	log, _ := newLogger(t)
	conn := dial(t, embeddedServer(t), log)
	cons := setup(t, newJetStream(t, conn), 5, 0, log)
	store := openStore(t)
	ids := enqueue(t, store, 1)
	// Another delivery is running rec-a for this event.
	claims, err := store.Ledger().Claim(context.Background(), time.Now(), lease, []delivery.Key{{EventID: ids[0], Handler: "rec-a"}})
	if err != nil || claims[0].State != delivery.Acquired {
		t.Fatalf("foreign claim: %v %v", claims, err)
	}
	heldUntil := time.UnixMilli(claims[0].Token).Add(lease)

	rec := newRecorder()
	// A huge backoff: had the defer been treated as a retry, the event would not come back.
	startConsumer(t, conn, cons, store, rec.handlers("w"), delivery.Config{LedgerLease: lease, BackoffBase: time.Hour}, log)
	startRelay(t, conn, store, RelayConfig{Logger: log})

	deliverytest.Eventually(t, 20*time.Second, "the event handled once the foreign claim expired", func() bool {
		return rec.handledAll(ids) && drained(t, cons)
	})
	rec.checkOnce(t, ids)
	rec.mu.Lock()
	attempts, times := rec.attempts[ids[0]], rec.times[ids[0]]
	rec.mu.Unlock()
	if !slices.Equal(attempts, []int{2}) {
		t.Fatalf("rec-a ran on deliveries %v, want only the second", attempts)
	}
	if times[0].Before(heldUntil) {
		t.Fatalf("redelivered at %s, before the held claim's lease ended at %s", times[0].Format(time.StampMilli), heldUntil.Format(time.StampMilli))
	}
}

func TestConsumerInProgressNoticesOutlastAckWait(t *testing.T) {
	t.Parallel()
	ackWait := 1500 * time.Millisecond // notices every 500 ms: a loaded machine may delay one by a second
	log, _ := newLogger(t)
	conn := dial(t, embeddedServer(t), log)
	cons := setup(t, newJetStream(t, conn), 5, ackWait, log)
	store := openStore(t)
	rec := newRecorder()
	rec.fail = func(delivery.Envelope) error {
		time.Sleep(2 * ackWait) // each handler works longer than ack_wait
		return nil
	}
	startConsumer(t, conn, cons, store, rec.handlers("w"), delivery.Config{}, log)
	ids := enqueue(t, store, 1)
	startRelay(t, conn, store, RelayConfig{Logger: log})

	deliverytest.Eventually(t, 30*time.Second, "the event handled and acked", func() bool {
		return rec.handledAll(ids) && drained(t, cons)
	})
	if n := consumerInfo(t, cons).Delivered.Consumer; n != 1 {
		t.Fatalf("%d deliveries: ack_wait expired under a live handler", n)
	}
	rec.checkOnce(t, ids)
}

func TestTwoWorkersShareOneDurableConsumerAndNeverRunAHandlerTwice(t *testing.T) {
	t.Parallel()
	const events = 300
	log, _ := newLogger(t)
	url := embeddedServer(t)
	conn1, conn2 := dial(t, url, log), dial(t, url, log)
	js1, js2 := newJetStream(t, conn1), newJetStream(t, conn2)
	cons1 := setup(t, js1, 5, 0, log)
	cons2, err := js2.Consumer(context.Background(), "EVENTS", "worker")
	if err != nil {
		t.Fatal(err)
	}
	store := openStore(t)
	rec := newRecorder()
	engine := delivery.Config{LedgerLease: 2 * time.Second}
	startConsumer(t, conn1, cons1, store, rec.handlers("w1"), engine, log)
	startConsumer(t, conn2, cons2, store, rec.handlers("w2"), engine, log)

	ids := make([]string, events)
	for i := range ids {
		ids[i] = uuid.NewString()
	}
	publishTwice(t, js1, ids)

	deliverytest.Eventually(t, 60*time.Second, "every event handled and every copy acked", func() bool {
		return rec.handledAll(ids) && drained(t, cons1)
	})
	rec.checkOnce(t, ids)
	rec.mu.Lock()
	w1, w2 := rec.byWorker["w1"], rec.byWorker["w2"]
	rec.mu.Unlock()
	if w1 == 0 || w2 == 0 {
		t.Fatalf("work not shared: worker 1 handled %d events, worker 2 %d", w1, w2)
	}
	t.Logf("worker 1 handled %d events, worker 2 %d", w1, w2)
}

// publishTwice puts every id in the stream twice, as a relay retry beyond the duplicate window
// would: it shrinks the window to its 100 ms minimum and republishes until the stream takes the
// second copy.
func publishTwice(t *testing.T, js jetstream.JetStream, ids []string) {
	t.Helper()
	ctx := context.Background()
	s, err := js.Stream(ctx, "EVENTS")
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.CachedInfo().Config
	cfg.Duplicates = 100 * time.Millisecond
	if _, err := js.UpdateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	before := streamMsgs(t, js)
	publish := func(id string) *jetstream.PubAck {
		m := natsgo.NewMsg(testPrefix + ".search.reindex.requested")
		m.Data = []byte(`{"type":"SearchReindexRequested"}`)
		m.Header.Set(jetstream.MsgIDHeader, id)
		ack, err := js.PublishMsg(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		return ack
	}
	for _, id := range ids {
		publish(id)
	}
	for _, id := range ids {
		deliverytest.Eventually(t, 10*time.Second, "a second copy accepted", func() bool { return !publish(id).Duplicate })
	}
	if n := streamMsgs(t, js) - before; n != uint64(2*len(ids)) {
		t.Fatalf("stream took %d messages, want %d (each event twice)", n, 2*len(ids))
	}
}

func TestConsumerNeverRunsTwoCopiesFromOneFetch(t *testing.T) {
	t.Parallel()
	log, _ := newLogger(t)
	conn := dial(t, embeddedServer(t), log)
	js := newJetStream(t, conn)
	cons := setup(t, js, 5, 0, log)
	ids := []string{uuid.NewString(), uuid.NewString()}
	publishTwice(t, js, ids) // both copies are waiting when the worker starts: one fetch gets them all

	store := openStore(t)
	rec := newRecorder()
	startConsumer(t, conn, cons, store, rec.handlers("w"), delivery.Config{LedgerLease: time.Second}, log)
	deliverytest.Eventually(t, 20*time.Second, "every event handled and every copy acked", func() bool {
		return rec.handledAll(ids) && drained(t, cons)
	})
	rec.checkOnce(t, ids)
}

func TestSplitRepeats(t *testing.T) {
	t.Parallel()
	msgs := []delivery.Message{{EventID: "a"}, {EventID: "b"}, {EventID: "a"}, {}, {}, {EventID: "b"}}
	first, repeats := splitRepeats(msgs)
	ids := func(ms []delivery.Message) (out []string) {
		for _, m := range ms {
			out = append(out, m.EventID)
		}
		return out
	}
	if got := ids(first); !slices.Equal(got, []string{"a", "b", "", ""}) {
		t.Fatalf("first %q", got)
	}
	if got := ids(repeats); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("repeats %q", got)
	}
}

// TestPumpOverAConsumerStopsOnceTheConnectionIsClosed: the consumer reports a closed connection
// as final, so the pump drains and Run returns the error.
func TestPumpOverAConsumerStopsOnceTheConnectionIsClosed(t *testing.T) {
	t.Parallel()
	log, _ := newLogger(t)
	conn := dial(t, embeddedServer(t), log)
	cons := setup(t, newJetStream(t, conn), 5, 0, log)
	store := openStore(t)
	c := NewConsumer(conn, cons, store.Ledger(), ConsumerConfig{Prefix: testPrefix, WaitMax: time.Second, Logger: log})
	engine, err := delivery.NewEngine(delivery.Config{Logger: log}, store.Ledger())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- delivery.NewPump(c, engine, delivery.PumpConfig{Logger: log}).Run(context.Background())
	}()
	conn.Close()
	select {
	case err := <-done:
		if !errors.Is(err, delivery.ErrClosed) {
			t.Fatalf("Run returned %v, want an error wrapping delivery.ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the pump did not stop after the connection was closed")
	}
}

// TestConsumerLastDeliveryOutlivesItsLease: a stalled worker's claim on a message's last
// delivery does not go stale. After max_deliver JetStream gives the message to no one else (it
// drops it from the consumer's pending set once ack_wait passes), so the late outcome is still
// this worker's to record: the row is dead-lettered rather than left relayed until the re-relay
// horizon.
func TestConsumerLastDeliveryOutlivesItsLease(t *testing.T) {
	t.Parallel()
	log, _ := newLogger(t)
	conn := dial(t, embeddedServer(t), log)
	cons := setup(t, newJetStream(t, conn), 1, time.Second, log)
	store := openStore(t)
	db := rawDB(t, store)
	id := enqueue(t, store, 1)[0]
	startRelay(t, conn, store, RelayConfig{Logger: log})
	c := NewConsumer(conn, cons, store.Ledger(), ConsumerConfig{Prefix: testPrefix, WaitMax: time.Second, Logger: log}) // no Run: no notices
	var msgs []delivery.Message
	deliverytest.Eventually(t, 10*time.Second, "the only delivery claimed", func() bool {
		got, err := c.Claim(context.Background(), 10)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, got...)
		return len(msgs) > 0 && queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status = 'relayed'`) == 1
	})
	deliverytest.Eventually(t, 10*time.Second, "ack_wait over: JetStream gave the message up", func() bool {
		return consumerInfo(t, cons).NumAckPending == 0
	})
	if err := c.Settle(context.Background(), []delivery.Result{{Msg: msgs[0], Kind: delivery.Retry, Delay: time.Second, Err: errors.New("remote unavailable")}}); err != nil {
		t.Fatal(err)
	}
	var status, lastError string
	if err := db.QueryRow(`SELECT status, coalesce(last_error, '') FROM event_queue WHERE event_id = ?`, id).Scan(&status, &lastError); err != nil {
		t.Fatal(err)
	}
	if status != "dead_lettered" || !strings.Contains(lastError, "remote unavailable") {
		t.Fatalf("row %s with %q; want dead-lettered with the handler's error", status, lastError)
	}
}

// TestAShutdownHandsTheCopyBackWithoutSpendingAnAttempt: an event fails twice, and its third
// delivery is interrupted by the worker's shutdown. JetStream would count a redelivery of that
// message as a fourth delivery; instead the consumer hands the event back to the relay
// (terminating the message), whose fresh copy carries the two attempts spent
// (Moviesdiary-Attempts): the next worker's first delivery of it is attempt 3 again, and the
// row, once done, counts the two failures (issue 33 finding 9, ADR 0010).
func TestAShutdownHandsTheCopyBackWithoutSpendingAnAttempt(t *testing.T) {
	t.Parallel()
	log, _ := newLogger(t)
	conn := dial(t, embeddedServer(t), log)
	cons := setup(t, newJetStream(t, conn), 5, 0, log)
	store := openStore(t)
	db := rawDB(t, store)
	pumpCtx, shutdown := context.WithCancel(context.Background())
	defer shutdown()
	interrupted := make(chan struct{})
	var third int
	rec := newRecorder()
	rec.fail = func(e delivery.Envelope) error {
		switch {
		case e.Attempt < 3:
			return errors.New("remote unavailable")
		case e.Attempt == 3 && third == 0:
			third++
			close(interrupted)
			<-pumpCtx.Done() // the handler is stopped by the worker's shutdown
			return errors.New("interrupted")
		}
		return nil
	}
	first := NewConsumer(conn, cons, store.Ledger(), ConsumerConfig{Prefix: testPrefix, WaitMax: time.Second, Logger: log})
	stopFirst := run(t, "consumer", first.Run)
	engine, err := delivery.NewEngine(delivery.Config{BackoffBase: time.Millisecond, Logger: log}, store.Ledger(), rec.handlers("w1")...)
	if err != nil {
		t.Fatal(err)
	}
	pump := delivery.NewPump(first, engine, delivery.PumpConfig{BatchSize: 10, Grace: 5 * time.Second, Logger: log})
	pumped := make(chan error, 1)
	go func() { pumped <- pump.Run(pumpCtx) }()
	ids := enqueue(t, store, 1)
	startRelay(t, conn, store, RelayConfig{Logger: log})

	select {
	case <-interrupted:
	case <-time.After(30 * time.Second):
		t.Fatal("the third delivery never came")
	}
	shutdown()
	if err := <-pumped; err != nil {
		t.Fatal(err)
	}
	stopFirst()
	deliverytest.Eventually(t, 10*time.Second, "the row handed back with the two failures counted", func() bool {
		return queryInt(t, db, `SELECT count(*) FROM event_queue WHERE event_id = ? AND attempts = 2
			AND status IN ('pending', 'processing', 'relayed') AND relays >= 1`, ids[0]) == 1
	})
	startConsumer(t, conn, cons, store, rec.handlers("w2"), delivery.Config{BackoffBase: time.Millisecond}, log)
	deliverytest.Eventually(t, 30*time.Second, "the event done by the next worker", func() bool {
		return queryInt(t, db, `SELECT count(*) FROM event_queue WHERE event_id = ? AND status = 'done' AND attempts = 2`, ids[0]) == 1
	})
	rec.mu.Lock()
	attempts := rec.attempts[ids[0]]
	rec.mu.Unlock()
	if !slices.Equal(attempts, []int{1, 2, 3, 3}) {
		t.Fatalf("deliveries %v, want 1, 2, 3 (interrupted) and 3 again: the shutdown spent no attempt", attempts)
	}
}
