package nats

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/domain"
)

// TestPurgedStreamLosesNothing: the broker "loses" acknowledged messages — the stream is purged
// right after the relay has its PubAcks, as a power loss inside nats-server's fsync interval
// would. Every relayed row is still waiting for an outcome, so once the horizon passes the relay
// publishes each again, and every event reaches every handler exactly once, within the horizon.
func TestPurgedStreamLosesNothing(t *testing.T) {
	t.Parallel()
	const maxDeliver, events = 2, 40
	ackWait, base := time.Second, 20*time.Millisecond
	horizon := Horizon(maxDeliver, ackWait, base)
	log, sink := newLogger(t)
	conn := dial(t, embeddedServer(t), log)
	js := newJetStream(t, conn)
	cons := setup(t, js, maxDeliver, ackWait, log)
	store := openStore(t)
	db := rawDB(t, store)
	ids := enqueue(t, store, events)
	startRelay(t, conn, store, RelayConfig{Logger: log, BackoffBase: base, Horizon: horizon})
	deliverytest.Eventually(t, 10*time.Second, "every row relayed", func() bool {
		return queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status = 'relayed'`) == events && streamMsgs(t, js) == events
	})
	s, err := js.Stream(context.Background(), "EVENTS")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Purge(context.Background()); err != nil {
		t.Fatal(err)
	}
	purged := time.Now()

	rec := newRecorder()
	startConsumer(t, conn, cons, store, rec.handlers("w"), delivery.Config{BackoffBase: base}, log)
	deliverytest.Eventually(t, horizon+20*time.Second, "every event handled and its row done", func() bool {
		return rec.handledAll(ids) && queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status = 'done'`) == events
	})
	if took := time.Since(purged); took > horizon+5*time.Second {
		t.Errorf("the lost events took %s to be handled, past the horizon %s", took, horizon)
	}
	rec.checkOnce(t, ids)
	if n := len(sink.find("relaying again events with no outcome recorded within the re-relay horizon (the broker lost them, or their consumers died)")); n == 0 {
		t.Error("the re-relay was not logged")
	}
	if n := queryInt(t, db, `SELECT count(*) FROM event_queue WHERE relays = 2`); n != events {
		t.Errorf("%d rows relayed twice, want %d", n, events)
	}
}

// TestRetryInsideTheDuplicateWindowDeliversAgain: an operator's retry of a JetStream dead letter
// is published under a new Nats-Msg-Id, so the broker's one-hour duplicate window does not
// swallow it, and the ledger still skips the handlers that succeeded the first time.
func TestRetryInsideTheDuplicateWindowDeliversAgain(t *testing.T) {
	t.Parallel()
	log, _ := newLogger(t)
	conn := dial(t, embeddedServer(t), log)
	js := newJetStream(t, conn)
	cons := setup(t, js, 5, 0, log)
	store := openStore(t)
	db := rawDB(t, store)
	rec := newRecorder()
	var mu sync.Mutex
	broken := true
	rec.fail = func(delivery.Envelope) error {
		mu.Lock()
		defer mu.Unlock()
		if broken {
			return domain.Permanent(errors.New("remote answered 410 Gone"))
		}
		return nil
	}
	hs := rec.handlers("w")
	runsB := 0
	hs[1].Handle = func(context.Context, delivery.Envelope) error { // rec-b always succeeds
		mu.Lock()
		runsB++
		mu.Unlock()
		return nil
	}
	startConsumer(t, conn, cons, store, hs, delivery.Config{}, log)
	ids := enqueue(t, store, 1)
	startRelay(t, conn, store, RelayConfig{Logger: log})
	deliverytest.Eventually(t, 10*time.Second, "the event dead-lettered in its row", func() bool {
		return queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status = 'dead_lettered'`) == 1
	})

	mu.Lock()
	broken = false
	mu.Unlock()
	if n, err := store.RetryEvents(context.Background(), ids, ""); err != nil || n != 1 {
		t.Fatalf("retry: %d rows, %v", n, err)
	}
	deliverytest.Eventually(t, 10*time.Second, "the retried event handled and done", func() bool {
		return queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status = 'done'`) == 1
	})
	rec.mu.Lock()
	runsA, runsC := rec.runs[delivery.Key{EventID: ids[0], Handler: "rec-a"}], rec.runs[delivery.Key{EventID: ids[0], Handler: "rec-c"}]
	deliveriesA := len(rec.attempts[ids[0]])
	rec.mu.Unlock()
	mu.Lock()
	defer mu.Unlock()
	if runsA != 1 || runsC != 1 || deliveriesA != 2 || runsB != 1 {
		t.Fatalf("after the retry: rec-a succeeded %d times in %d deliveries, rec-b ran %d times, rec-c %d; "+
			"want rec-a and rec-c run again and succeed once, rec-b skipped by the ledger", runsA, deliveriesA, runsB, runsC)
	}
	if n := streamMsgs(t, js); n != 2 {
		t.Fatalf("stream holds %d messages, want 2 (the retry is a second message)", n)
	}
}

// TestCoreModeSubscriberOutageLosesNothing: core NATS drops what is published while no worker
// listens; the rows wait for an outcome and the relay publishes them again after the horizon,
// once the subscriber is back: every event handled once.
func TestCoreModeSubscriberOutageLosesNothing(t *testing.T) {
	t.Parallel()
	const events = 30
	horizon := 2 * time.Second
	log, sink := newLogger(t)
	url := embeddedServer(t)
	store := openStore(t)
	db := rawDB(t, store)
	ids := enqueue(t, store, events)
	startRelay(t, dial(t, url, log), store, RelayConfig{Mode: Core, Logger: log, Horizon: horizon})
	deliverytest.Eventually(t, 10*time.Second, "every row published to nobody", func() bool {
		return queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status = 'relayed'`) == events
	})
	rec := newRecorder()
	w := startCoreWorker(t, url, store, rec.handlers("w"), delivery.Config{}, log)
	deliverytest.Eventually(t, horizon+20*time.Second, "every event handled and done after the subscriber came back", func() bool {
		return rec.handledAll(ids) && w.settled(t) &&
			queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status = 'done'`) == events
	})
	rec.checkOnce(t, ids)
	if len(sink.find("relaying again events with no outcome recorded within the re-relay horizon (the broker lost them, or their consumers died)")) == 0 {
		t.Error("the re-relay was not logged")
	}
}

// TestNewDurableOnAnOldStreamDoesNotReplayHistory: a durable created on a stream that already
// holds messages (the consumer was deleted, or renamed with NATS_CONSUMER_NAME) starts after
// them: their events, handled long ago, and legacy messages without an id do not run through the
// handlers again. New events are delivered.
func TestNewDurableOnAnOldStreamDoesNotReplayHistory(t *testing.T) {
	t.Parallel()
	log, sink := newLogger(t)
	conn := dial(t, embeddedServer(t), log)
	js := newJetStream(t, conn)
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "EVENTS", Subjects: []string{testPrefix + ".>"},
		Duplicates: time.Hour, MaxAge: testMaxAge}); err != nil {
		t.Fatal(err)
	}
	for i := range 20 { // history: ten legacy messages without an id, ten with ids of handled events
		m := natsgo.NewMsg(testPrefix + ".search.reindex.requested")
		m.Data = []byte(`{"type":"SearchReindexRequested"}`)
		if i%2 == 1 {
			m.Header.Set(jetstream.MsgIDHeader, "0190a1b2-0000-7000-8000-0000000000"+string(rune('a'+i)))
		}
		if _, err := js.PublishMsg(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	cons := setup(t, js, 5, 0, log)
	if p := cons.CachedInfo().Config.DeliverPolicy; p != jetstream.DeliverNewPolicy {
		t.Fatalf("new durable on an old stream delivers %v, want new messages only", p)
	}
	if len(sink.find("new consumer on a stream with messages: it starts after them; events they carry that are not handled yet are relayed again after their horizon")) != 1 {
		t.Error("the start position was not logged")
	}
	store := openStore(t)
	rec := newRecorder()
	startConsumer(t, conn, cons, store, rec.handlers("w"), delivery.Config{}, log)
	ids := enqueue(t, store, 3)
	startRelay(t, conn, store, RelayConfig{Logger: log})
	deliverytest.Eventually(t, 10*time.Second, "the new events handled", func() bool { return rec.handledAll(ids) && drained(t, cons) })
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if n := len(rec.attempts); n != len(ids) {
		t.Fatalf("handlers saw %d events, want only the %d new ones", n, len(ids))
	}
}
