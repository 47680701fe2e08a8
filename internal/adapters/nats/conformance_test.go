package nats

import (
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/domain"
)

const conformanceMaxAttempts = 5

// TestJetStreamConformance runs the delivery conformance suite against the durable JetStream
// consumer, fed by the real relay. What the consumer applies is read off the wire: the suite's
// connection listens to the acks the consumer sends ($JS.ACK.…), so a nak's delay is the one
// JetStream was given.
func TestJetStreamConformance(t *testing.T) {
	t.Parallel()
	deliverytest.Run(t, deliverytest.Features{
		MaxAttempts:         conformanceMaxAttempts,
		CountsEveryDelivery: true,
		DeadLetterStore:     true,
		ReturnsOnShutdown:   true,
		Repeats:             true,
		WallClockBackoff:    20 * time.Millisecond,
	}, newJetStreamHarness)
}

// TestCoreConformance runs the delivery conformance suite against a core NATS queue-group
// subscription, fed by the relay in core mode.
func TestCoreConformance(t *testing.T) {
	t.Parallel()
	deliverytest.Run(t, deliverytest.Features{
		MaxAttempts:      conformanceMaxAttempts,
		DeadLetterStore:  true,
		Repeats:          true,
		WallClockBackoff: 20 * time.Millisecond,
	}, newCoreHarness)
}

// busHarness is what both NATS harnesses share: a server, a store whose outbox the relay
// publishes, and the number of copies of each event id put on the bus.
type busHarness struct {
	url    string
	conn   *Conn
	store  *sqlite.Store
	log    *slog.Logger
	sink   *logSink
	mu     sync.Mutex
	copies map[string]int
	raw    *sql.DB
}

func newBusHarness(t *testing.T, mode Mode) *busHarness {
	log, sink := newLogger(t)
	url := embeddedServer(t)
	h := &busHarness{url: url, conn: dial(t, url, log), store: openStore(t), log: log, sink: sink, copies: map[string]int{}}
	if mode == JetStream {
		setup(t, newJetStream(t, h.conn), conformanceMaxAttempts, 0, log)
	}
	startRelay(t, h.conn, h.store, RelayConfig{Mode: mode, Logger: log})
	return h
}

func (h *busHarness) Ledger() deliverytest.Ledger { return h.store.Ledger() }
func (h *busHarness) Now() time.Time              { return time.Now() }
func (h *busHarness) Advance(time.Duration)       { panic("the NATS sources run on the wall clock") }

// Publish writes the events to the outbox; the relay puts them on the bus.
func (h *busHarness) Publish(t *testing.T, events ...domain.Event) []string {
	ids := make([]string, len(events))
	withIDs := make([]domain.Event, len(events))
	h.mu.Lock()
	for i, e := range events {
		id := uuid.New()
		ids[i], withIDs[i] = id.String(), sqlite.EventWithID{ID: id, Event: e}
		h.copies[ids[i]] = 1
	}
	h.mu.Unlock()
	if err := h.store.Enqueue(context.Background(), withIDs...); err != nil {
		t.Fatal(err)
	}
	return ids
}

func (h *busHarness) published(id string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.copies[id]
}

// message is e as the relay would publish it under id.
func (h *busHarness) message(t *testing.T, id string, e domain.Event) *natsgo.Msg {
	t.Helper()
	subject, err := Subject(testPrefix, e.EventType())
	if err != nil {
		t.Fatal(err)
	}
	payload, err := domain.Encode(e)
	if err != nil {
		t.Fatal(err)
	}
	m := natsgo.NewMsg(subject)
	m.Data = payload
	m.Header.Set(jetstream.MsgIDHeader, id)
	return m
}

// deadLetter reads a dead-lettered event's outbox row, where every backend keeps it.
func (h *busHarness) deadLetter(t *testing.T, id string) (deliverytest.Outcome, bool) {
	var attempts int
	var lastError string
	err := h.db(t).QueryRow(`SELECT attempts, coalesce(last_error, '') FROM event_queue
		WHERE event_id = ? AND status = 'dead_lettered'`, id).Scan(&attempts, &lastError)
	if err != nil {
		return deliverytest.Outcome{}, false
	}
	return deliverytest.Outcome{State: deliverytest.DeadLettered, Attempts: attempts, Err: lastError}, true
}

// Row reads the event's outbox row, where the consumer records its outcome.
func (h *busHarness) Row(t *testing.T, id string) deliverytest.Row {
	var r deliverytest.Row
	if err := h.db(t).QueryRow(`SELECT status, attempts, coalesce(last_error, '') FROM event_queue WHERE event_id = ?`, id).
		Scan(&r.Status, &r.Attempts, &r.LastError); err != nil {
		t.Fatal(err)
	}
	return r
}

// db is a plain connection to the harness's database.
func (h *busHarness) db(t *testing.T) *sql.DB {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.raw == nil {
		h.raw = rawDB(t, h.store)
	}
	return h.raw
}

// jetStreamHarness adds the stream, the durable consumer and the acks seen on the wire.
type jetStreamHarness struct {
	*busHarness
	js   jetstream.JetStream
	acks sync.Map // stream sequence (uint64) → jsAck, the latest outcome sent for it
	ids  sync.Map // stream sequence → event id
}

// jsAck is one ack a consumer sent, parsed from its subject and body.
type jsAck struct {
	delivered int
	kind      string // +ACK, -NAK, +TERM
	delay     time.Duration
	reason    string
}

func newJetStreamHarness(t *testing.T) deliverytest.Harness {
	h := &jetStreamHarness{busHarness: newBusHarness(t, JetStream)}
	h.js = newJetStream(t, h.conn)
	snoop := dial(t, h.url, h.log)
	if _, err := snoop.NATS().Subscribe("$JS.ACK.EVENTS.worker.>", h.record); err != nil {
		t.Fatal(err)
	}
	if err := snoop.NATS().Flush(); err != nil {
		t.Fatal(err)
	}
	return h
}

// record keeps an ack the consumer sent: $JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.…
func (h *jetStreamHarness) record(m *natsgo.Msg) {
	tokens := strings.Split(m.Subject, ".")
	if len(tokens) < 6 {
		return
	}
	delivered, _ := strconv.Atoi(tokens[4])
	seq, _ := strconv.ParseUint(tokens[5], 10, 64)
	kind, rest, _ := strings.Cut(string(m.Data), " ")
	a := jsAck{delivered: delivered, kind: kind}
	switch kind {
	case "+ACK":
	case "-NAK":
		var body struct {
			Delay time.Duration `json:"delay"`
		}
		if rest != "" {
			_ = json.Unmarshal([]byte(rest), &body)
		}
		a.delay = body.Delay
	case "+TERM":
		a.reason = rest
	default:
		return // in-progress notices change nothing
	}
	h.acks.Store(seq, a)
}

func (h *jetStreamHarness) Source(t *testing.T) delivery.Source {
	cons, err := h.js.Consumer(context.Background(), "EVENTS", "worker")
	if err != nil {
		t.Fatal(err)
	}
	c := NewConsumer(h.conn, cons, h.store.Ledger(), ConsumerConfig{Prefix: testPrefix, WaitMax: time.Second, Logger: h.log})
	run(t, "consumer", c.Run) // registered before the suite's pump, so it stops after it
	return c
}

// PublishCopies puts copies of e on the stream under one id, as relay retries beyond the
// duplicate window would: the window shrinks to its 100 ms minimum and each copy is published
// until the stream takes it.
func (h *jetStreamHarness) PublishCopies(t *testing.T, e domain.Event, copies int) string {
	ctx := context.Background()
	s, err := h.js.Stream(ctx, "EVENTS")
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.CachedInfo().Config
	cfg.Duplicates = 100 * time.Millisecond
	if _, err := h.js.UpdateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	id := uuid.NewString()
	h.mu.Lock()
	h.copies[id] = copies
	h.mu.Unlock()
	for range copies {
		deliverytest.Eventually(t, 10*time.Second, "the stream took a copy", func() bool {
			ack, err := h.js.PublishMsg(ctx, h.message(t, id, e))
			if err != nil {
				t.Fatal(err)
			}
			return !ack.Duplicate
		})
	}
	return id
}

// Outcome is the latest ack of each copy of the event: done only once every copy is acked.
func (h *jetStreamHarness) Outcome(t *testing.T, id string) deliverytest.Outcome {
	var o deliverytest.Outcome
	done := 0
	h.acks.Range(func(k, v any) bool {
		seq, a := k.(uint64), v.(jsAck)
		if h.eventID(t, seq) != id {
			return true
		}
		switch a.kind {
		case "+ACK":
			done++
			if o.State == deliverytest.Unknown {
				o = deliverytest.Outcome{State: deliverytest.Done, Attempts: a.delivered}
			}
		case "-NAK":
			o = deliverytest.Outcome{State: deliverytest.Waiting, Attempts: a.delivered, Delay: a.delay}
		case "+TERM":
			o = deliverytest.Outcome{State: deliverytest.DeadLettered, Attempts: a.delivered, Err: a.reason}
		}
		return true
	})
	if o.State == deliverytest.Done && done < h.published(id) {
		return deliverytest.Outcome{} // a copy has not been settled yet
	}
	return o
}

// eventID is the Nats-Msg-Id of the stream's message at seq.
func (h *jetStreamHarness) eventID(t *testing.T, seq uint64) string {
	if id, ok := h.ids.Load(seq); ok {
		return id.(string)
	}
	s, err := h.js.Stream(context.Background(), "EVENTS")
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.GetMsg(context.Background(), seq)
	if err != nil {
		t.Fatal(err)
	}
	id := m.Header.Get(jetstream.MsgIDHeader)
	h.ids.Store(seq, id)
	return id
}

// coreHarness adds the queue-group members the suite asks for and what they settled.
type coreHarness struct {
	*busHarness
	mu      sync.Mutex
	members []*coreMember
}

// coreMember is a CoreConsumer that remembers which events it acked.
type coreMember struct {
	*CoreConsumer
	mu    sync.Mutex
	acked map[string]int
}

func (c *coreMember) Settle(ctx context.Context, results []delivery.Result) error {
	err := c.CoreConsumer.Settle(ctx, results)
	if err == nil {
		c.mu.Lock()
		for _, r := range results {
			if r.Kind == delivery.Ack {
				c.acked[r.Msg.EventID]++
			}
		}
		c.mu.Unlock()
	}
	return err
}

func newCoreHarness(t *testing.T) deliverytest.Harness {
	return &coreHarness{busHarness: newBusHarness(t, Core)}
}

func (h *coreHarness) Source(t *testing.T) delivery.Source {
	c, err := SubscribeCore(h.conn, h.store.Ledger(), CoreConfig{Prefix: testPrefix, Group: "worker",
		MaxAttempts: conformanceMaxAttempts, WaitMax: time.Second, Logger: h.log})
	if err != nil {
		t.Fatal(err)
	}
	run(t, "core consumer", c.Run)                // registered before the suite's pump, so it stops after it
	if err := h.conn.NATS().Flush(); err != nil { // subscribed before anything is published
		t.Fatal(err)
	}
	m := &coreMember{CoreConsumer: c, acked: map[string]int{}}
	h.mu.Lock()
	h.members = append(h.members, m)
	h.mu.Unlock()
	return m
}

// PublishCopies publishes copies of e under one id straight to the group, as a relay that
// crashed before marking its row done would.
func (h *coreHarness) PublishCopies(t *testing.T, e domain.Event, copies int) string {
	id := uuid.NewString()
	h.busHarness.mu.Lock()
	h.copies[id] = copies
	h.busHarness.mu.Unlock()
	for range copies {
		if err := h.conn.NATS().PublishMsg(h.message(t, id, e)); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

// Outcome is a pending in-process retry (its delay and attempt), an error line for an event
// given up, or the acks of every copy.
func (h *coreHarness) Outcome(t *testing.T, id string) deliverytest.Outcome {
	h.mu.Lock()
	members := append([]*coreMember(nil), h.members...)
	h.mu.Unlock()
	acked := 0
	for _, m := range members {
		m.CoreConsumer.mu.Lock()
		for _, r := range m.retries {
			if r.msg.EventID == id {
				m.CoreConsumer.mu.Unlock()
				return deliverytest.Outcome{State: deliverytest.Waiting, Attempts: r.msg.Attempt - 1, Delay: r.delay}
			}
		}
		m.CoreConsumer.mu.Unlock()
		m.mu.Lock()
		acked += m.acked[id]
		m.mu.Unlock()
	}
	if o, ok := h.deadLetter(t, id); ok {
		return o
	}
	if acked > 0 && acked >= h.published(id) {
		return deliverytest.Outcome{State: deliverytest.Done}
	}
	return deliverytest.Outcome{}
}
