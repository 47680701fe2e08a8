package nats

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/outbox"
)

// killingOutbox kills the server right after the first claim once armed, so the relay holds
// claimed rows when the bus disappears.
type killingOutbox struct {
	delivery.Source
	armed atomic.Bool
	kill  func()
}

func (k *killingOutbox) Claim(ctx context.Context, max int) ([]delivery.Message, error) {
	msgs, err := k.Source.Claim(ctx, max)
	if len(msgs) > 0 && k.armed.CompareAndSwap(true, false) {
		k.kill()
	}
	return msgs, err
}

// TestOutageSpendsNoAttemptAndLosesNothing kills the NATS server (SIGKILL, in a child process)
// while 500 events are written (right after the relay claimed the first of them), checks that no row spent an attempt or was dead-lettered while
// the bus was gone, restarts the server on the same port and store, and expects every event to
// reach every handler exactly once. Connection loss and recovery are logged once each.
func TestOutageSpendsNoAttemptAndLosesNothing(t *testing.T) {
	t.Parallel()
	srv := newServerProcess(t)
	srv.start()
	log, sink := newLogger(t)
	conn := dial(t, srv.url(), log)
	js := newJetStream(t, conn)
	cons := setup(t, js, 5, 0, log)
	store := openStore(t)
	db := rawDB(t, store)
	rec := newRecorder()
	startConsumer(t, conn, cons, store, rec.handlers("w"), delivery.Config{}, log)
	q := store.Queue(outbox.QueueConfig{Logger: log})
	defer q.Close()
	outbox := &killingOutbox{Source: q, kill: srv.kill}
	runRelay(t, conn, outbox, RelayConfig{Logger: log, BackoffBase: 50 * time.Millisecond, AckTimeout: 2 * time.Second})

	warmup := enqueue(t, store, 50)
	deliverytest.Eventually(t, 20*time.Second, "warm-up events handled", func() bool { return rec.handledAll(warmup) })

	outbox.armed.Store(true)
	var ids []string
	for range 50 {
		ids = append(ids, enqueue(t, store, 10)...)
	}
	deliverytest.Eventually(t, 10*time.Second, "connection loss logged and the claimed rows deferred", func() bool {
		return len(sink.find("nats connection lost; reconnecting")) > 0 && len(sink.find(pausedMsg)) > 0
	})
	if n := queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status != 'done'`); n == 0 {
		t.Fatal("every event was relayed although the server was killed while they were written")
	}
	if n := queryInt(t, db, `SELECT count(*) FROM event_queue WHERE attempts > 0 OR status = 'dead_lettered'`); n != 0 {
		t.Fatalf("%d rows spent an attempt or were dead-lettered during the outage", n)
	}

	srv.start()
	all := append(warmup, ids...)
	deliverytest.Eventually(t, 90*time.Second, "every event handled after the restart", func() bool {
		return rec.handledAll(all) &&
			queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status = 'done'`) == len(all)
	})
	rec.checkOnce(t, all)
	if n := queryInt(t, db, `SELECT coalesce(sum(attempts), 0) FROM event_queue`); n != 0 {
		t.Fatalf("the outage spent %d attempts", n)
	}
	if n := len(sink.find("nats connection lost; reconnecting")); n != 1 {
		t.Errorf("connection loss logged %d times, want 1", n)
	}
	if n := len(sink.find("nats connection restored")); n != 1 {
		t.Errorf("reconnection logged %d times, want 1", n)
	}
}
