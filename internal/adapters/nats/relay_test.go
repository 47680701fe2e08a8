package nats

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/outbox"
)

const foreignRow = `INSERT INTO event_queue (event_id, event_type, payload) VALUES (NULL, ?, ?)`

// TestRelayPublishesEachRowWithItsEventIDAndRecordsTheHandoff: each row goes out with its event
// id; a row with an id is then relayed (waiting for its consumer's outcome), a foreign writer's
// row without one is done, as no outcome can ever be recorded for it.
func TestRelayPublishesEachRowWithItsEventIDAndRecordsTheHandoff(t *testing.T) {
	t.Parallel()
	log, _ := newLogger(t)
	conn := dial(t, embeddedServer(t), log)
	js := newJetStream(t, conn)
	setup(t, js, 5, 0, log)
	store := openStore(t)
	db := rawDB(t, store)
	ids := enqueue(t, store, 3)
	if _, err := db.Exec(foreignRow, "SearchReindexRequested", `{"type":"SearchReindexRequested"}`); err != nil {
		t.Fatal(err)
	}

	startRelay(t, conn, store, RelayConfig{Logger: log})
	deliverytest.Eventually(t, 10*time.Second, "every row handed off", func() bool {
		return queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status = 'relayed' AND event_id IS NOT NULL AND relays = 1`) == 3 &&
			queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status = 'done' AND event_id IS NULL`) == 1
	})

	s, err := js.Stream(context.Background(), "EVENTS")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for seq := uint64(1); seq <= 4; seq++ {
		m, err := s.GetMsg(context.Background(), seq)
		if err != nil {
			t.Fatalf("message %d: %v", seq, err)
		}
		if want := testPrefix + ".search.reindex.requested"; m.Subject != want {
			t.Errorf("message %d on %q, want %q", seq, m.Subject, want)
		}
		if vals, ok := m.Header[jetstream.MsgIDHeader]; ok && (len(vals) != 1 || vals[0] == "") {
			t.Errorf("message %d: malformed %s header %q", seq, jetstream.MsgIDHeader, vals)
		}
		if m.Header.Get(EventIDHeader) != m.Header.Get(jetstream.MsgIDHeader) {
			t.Errorf("message %d: %s %q, want the event id %q of its first round", seq, EventIDHeader,
				m.Header.Get(EventIDHeader), m.Header.Get(jetstream.MsgIDHeader))
		}
		got = append(got, m.Header.Get(jetstream.MsgIDHeader))
	}
	slices.Sort(got)
	want := append([]string{""}, ids...) // the foreign row has no id: no header at all
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("Nats-Msg-Id headers %q, want %q", got, want)
	}
	if n := streamMsgs(t, js); n != 4 {
		t.Fatalf("stream holds %d messages, want 4", n)
	}
}

// TestRelayCarriesAForeignRowsRowID: two foreign writer's rows with equal payloads (no event
// id) go out each with its own row id in a header, which is what a consumer's message carries
// to its handlers: they key such a row by it, so the two stay two events.
func TestRelayCarriesAForeignRowsRowID(t *testing.T) {
	t.Parallel()
	log, _ := newLogger(t)
	conn := dial(t, embeddedServer(t), log)
	js := newJetStream(t, conn)
	setup(t, js, 5, 0, log)
	store := openStore(t)
	db := rawDB(t, store)
	for range 2 {
		if _, err := db.Exec(foreignRow, "SearchReindexRequested", `{"type":"SearchReindexRequested"}`); err != nil {
			t.Fatal(err)
		}
	}
	var rows []int64
	r, err := db.Query(`SELECT id FROM event_queue ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var id int64
		if err := r.Scan(&id); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, id)
	}
	r.Close()
	startRelay(t, conn, store, RelayConfig{Logger: log})
	deliverytest.Eventually(t, 10*time.Second, "both rows relayed", func() bool {
		return queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status = 'done'`) == 2
	})
	s, err := js.Stream(context.Background(), "EVENTS")
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for seq := uint64(1); seq <= 2; seq++ {
		m, err := s.GetMsg(context.Background(), seq)
		if err != nil {
			t.Fatalf("message %d: %v", seq, err)
		}
		if m.Header.Get(EventIDHeader) != "" || m.Header.Get(jetstream.MsgIDHeader) != "" {
			t.Errorf("message %d: a foreign row got an event id header: %v", seq, m.Header)
		}
		got = append(got, rowID(m.Header))
	}
	slices.Sort(got)
	if !slices.Equal(got, rows) {
		t.Fatalf("row ids received %v, want %v", got, rows)
	}
}

// crashingOutbox publishes normally but dies before any row is marked done.
type crashingOutbox struct {
	delivery.Source
	settles atomic.Int32
}

func (c *crashingOutbox) Settle(context.Context, []delivery.Result) error {
	c.settles.Add(1)
	return errors.New("crashed before marking the rows done")
}

func TestRelayCrashAfterPublishRepublishesWithoutDuplicates(t *testing.T) {
	t.Parallel()
	log, sink := newLogger(t)
	conn := dial(t, embeddedServer(t), log)
	js := newJetStream(t, conn)
	cons := setup(t, js, 5, 0, log)
	store := openStore(t)
	db := rawDB(t, store)
	ids := enqueue(t, store, 20)

	// First life: every row is published, none is marked done.
	q := store.Queue(outbox.QueueConfig{Logger: log})
	defer q.Close()
	crashing := &crashingOutbox{Source: q}
	stop := runRelay(t, conn, crashing, RelayConfig{Logger: log})
	deliverytest.Eventually(t, 10*time.Second, "first relay published everything and tried to settle", func() bool {
		return streamMsgs(t, js) == 20 && crashing.settles.Load() > 0
	})
	stop()
	if n := queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status = 'processing'`); n != 20 {
		t.Fatalf("%d rows still claimed after the crash, want 20", n)
	}

	// Second life, once the dead relay's lease has run out: the rows are claimed again and
	// republished under the same ids.
	later := func() time.Time { return time.Now().Add(outbox.ClaimLeaseDefault + time.Second) }
	restarted := sqlitetest.Open(t, store.Path(), sqlite.WithClock(later))
	startRelay(t, conn, restarted, RelayConfig{Logger: log, Now: later})
	deliverytest.Eventually(t, 10*time.Second, "restarted relay handed every row off", func() bool {
		return queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status = 'relayed'`) == 20
	})
	if len(sink.find("reclaiming events whose claim outlived the lease (a claimer died); the abandoned delivery counts as an attempt")) == 0 {
		t.Fatal("the restarted relay did not reclaim the dead relay's rows")
	}
	if n := streamMsgs(t, js); n != 20 {
		t.Fatalf("stream holds %d messages after the republish, want 20 (the broker must drop duplicates)", n)
	}

	rec := newRecorder()
	startConsumer(t, conn, cons, store, rec.handlers("w"), delivery.Config{}, log)
	deliverytest.Eventually(t, 10*time.Second, "every event handled and acked", func() bool {
		return rec.handledAll(ids) && drained(t, cons) &&
			queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status = 'done'`) == 20
	})
	rec.checkOnce(t, ids)
}

func TestRelayDefersWithGrowingPausesWhileTheStreamIsMissing(t *testing.T) {
	t.Parallel()
	log, sink := newLogger(t)
	conn := dial(t, embeddedServer(t), log)
	js := newJetStream(t, conn)
	store := openStore(t)
	db := rawDB(t, store)
	ids := enqueue(t, store, 5)

	startRelay(t, conn, store, RelayConfig{Logger: log, BackoffBase: 50 * time.Millisecond, AckTimeout: 2 * time.Second})
	deliverytest.Eventually(t, 20*time.Second, "two failed rounds", func() bool { return len(sink.find(pausedMsg)) >= 2 })
	paused := sink.find(pausedMsg)
	if paused[0]["resume_in"] != "50ms" || paused[1]["resume_in"] != "100ms" {
		t.Fatalf("pauses %s then %s, want 50ms then 100ms", paused[0]["resume_in"], paused[1]["resume_in"])
	}
	if n := queryInt(t, db, `SELECT count(*) FROM event_queue WHERE attempts > 0 OR status = 'dead_lettered'`); n != 0 {
		t.Fatalf("%d rows spent an attempt or were dead-lettered by a missing stream", n)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status IN ('done', 'relayed')`); n != 0 {
		t.Fatalf("%d rows handed off without a stream", n)
	}

	cons := setup(t, js, 5, 0, log) // the stream appears
	deliverytest.Eventually(t, 20*time.Second, "every row relayed once the stream exists", func() bool {
		return queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status = 'relayed'`) == 5
	})
	if n := queryInt(t, db, `SELECT coalesce(sum(attempts), 0) FROM event_queue`); n != 0 {
		t.Fatalf("relaying spent %d attempts", n)
	}
	if n := len(sink.find("relay resumed: publishing again")); n != 1 {
		t.Fatalf("resumed logged %d times, want 1", n)
	}
	if info := consumerInfo(t, cons); info.NumPending != uint64(len(ids)) {
		t.Fatalf("consumer has %d pending, want %d", info.NumPending, len(ids))
	}
}

const pausedMsg = "relay paused: publishing failed; events deferred without spending an attempt"

func TestRelayDeadLettersARowNoSubjectCanCarry(t *testing.T) {
	t.Parallel()
	log, sink := newLogger(t)
	conn := dial(t, embeddedServer(t), log)
	setup(t, newJetStream(t, conn), 5, 0, log)
	store := openStore(t)
	db := rawDB(t, store)
	if _, err := db.Exec(foreignRow, "NoSuchEvent", `{"type":"NoSuchEvent"}`); err != nil {
		t.Fatal(err)
	}
	var counted atomic.Int32
	startRelay(t, conn, store, RelayConfig{Logger: log, OnDeadLetter: func() { counted.Add(1) }})
	deliverytest.Eventually(t, 10*time.Second, "the row dead-lettered", func() bool {
		return queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status = 'dead_lettered'`) == 1
	})
	if counted.Load() != 1 {
		t.Errorf("dead letter counted %d times, want once", counted.Load())
	}
	var lastError string
	if err := db.QueryRow(`SELECT last_error FROM event_queue`).Scan(&lastError); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(lastError, `no subject for event type "NoSuchEvent"`) {
		t.Fatalf("last_error %q does not say why", lastError)
	}
	// The row has no event id: the dead-letter line names it by its row id.
	row := strconv.Itoa(queryInt(t, db, `SELECT id FROM event_queue`))
	if lines := sink.find("event dead-lettered: it can never be published"); len(lines) != 1 || lines[0]["row_id"] != row {
		t.Errorf("dead-letter lines %v, want one with row_id %s", lines, row)
	}
}

// TestRelayRunReturnsOnceTheConnectionIsClosed: a relay whose connection is closed for good
// cannot go on; Run says so instead of waiting forever.
func TestRelayRunReturnsOnceTheConnectionIsClosed(t *testing.T) {
	t.Parallel()
	log, _ := newLogger(t)
	conn := dial(t, embeddedServer(t), log)
	store := openStore(t)
	q := store.Queue(outbox.QueueConfig{Logger: log})
	t.Cleanup(func() { q.Close() })
	r, err := NewRelay(conn, q, RelayConfig{Prefix: testPrefix, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.Run(context.Background()) }()
	conn.Close()
	select {
	case err := <-done:
		if !errors.Is(err, delivery.ErrClosed) {
			t.Fatalf("Run returned %v, want an error wrapping delivery.ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after the connection was closed")
	}
}

// cancellingOutbox ends the relay's context right after the first claim that returns rows, so a
// round is in progress when the shutdown begins.
type cancellingOutbox struct {
	delivery.Source
	cancel context.CancelFunc
}

func (c *cancellingOutbox) Claim(ctx context.Context, max int) ([]delivery.Message, error) {
	msgs, err := c.Source.Claim(ctx, max)
	if len(msgs) > 0 {
		c.cancel()
	}
	return msgs, err
}

// TestRelayFinishesTheRoundInProgressAtShutdown: a round claimed before the shutdown still
// publishes, waits for its PubAcks and records its rows' handoff before Run returns.
func TestRelayFinishesTheRoundInProgressAtShutdown(t *testing.T) {
	t.Parallel()
	log, _ := newLogger(t)
	conn := dial(t, embeddedServer(t), log)
	js := newJetStream(t, conn)
	setup(t, js, 5, 0, log)
	store := openStore(t)
	db := rawDB(t, store)
	enqueue(t, store, 50)
	q := store.Queue(outbox.QueueConfig{Logger: log})
	t.Cleanup(func() { q.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := NewRelay(conn, &cancellingOutbox{Source: q, cancel: cancel}, RelayConfig{Prefix: testPrefix, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(ctx); err != nil {
		t.Fatalf("Run after a shutdown: %v", err)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status = 'relayed'`); n != 50 {
		t.Fatalf("%d of 50 rows handed off after the shutdown", n)
	}
	if n := streamMsgs(t, js); n != 50 {
		t.Fatalf("stream holds %d messages, want 50", n)
	}
}
