package nats

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
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
	"moviesdiary/internal/outbox"
)

const conformanceMaxAttempts = 5

// conformanceLease is the claim lease of the NATS sources under the suite, a test-only setting
// short enough for the stale-claimer case to wait out: JetStream's ack wait, core NATS's
// re-relay horizon. Live JetStream consumers renew it every third (in-progress notices), and
// every other case settles its events well within it (a core retry or defer moves the horizon
// past its due time).
const conformanceLease = 3 * time.Second

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
		Repeats:             true,
		ClaimLease:          conformanceLease,
		WallClockBackoff:    20 * time.Millisecond,
	}, newJetStreamHarness)
}

// TestCoreConformance runs the delivery conformance suite against a core NATS queue-group
// subscription, fed by the relay in core mode. Its outbox rows carry what the broker cannot: a
// claim is a relay round, which the relay publishes again once its horizon passes, and a
// shutdown hands its unstarted events back to the relay.
func TestCoreConformance(t *testing.T) {
	t.Parallel()
	deliverytest.Run(t, deliverytest.Features{
		MaxAttempts:      conformanceMaxAttempts,
		DeadLetterStore:  true,
		Repeats:          true,
		ClaimLease:       conformanceLease,
		WallClockBackoff: 20 * time.Millisecond,
	}, newCoreHarness)
}

// busHarness is what both NATS harnesses share: a server, a store whose outbox the relay
// publishes, the number of copies of each event id put on the bus, and how to stop each source's
// own work (deliverytest.Stopper).
type busHarness struct {
	url    string
	conn   *Conn
	store  *sqlite.Store
	log    *slog.Logger
	sink   *logSink
	mu     sync.Mutex
	copies map[string]int
	raw    *sql.DB
	stops  map[delivery.Source]func()
}

func newBusHarness(t *testing.T, mode Mode) *busHarness {
	log, sink := newLogger(t)
	url := embeddedServer(t)
	h := &busHarness{url: url, conn: dial(t, url, log), store: openStore(t), log: log, sink: sink, copies: map[string]int{},
		stops: map[delivery.Source]func(){}}
	cfg := RelayConfig{Mode: mode, Logger: log}
	if mode == JetStream {
		setup(t, newJetStream(t, h.conn), conformanceMaxAttempts, conformanceLease, log)
	} else {
		cfg.Horizon = conformanceLease
	}
	startRelay(t, h.conn, h.store, cfg)
	return h
}

// started keeps how to stop src's own work.
func (h *busHarness) started(src delivery.Source, stop func()) {
	h.mu.Lock()
	h.stops[src] = stop
	h.mu.Unlock()
}

// Stop ends src's own work: JetStream's in-progress notices, core NATS's subscription.
func (h *busHarness) Stop(t *testing.T, src delivery.Source) {
	h.mu.Lock()
	stop := h.stops[src]
	h.mu.Unlock()
	if stop == nil {
		t.Fatalf("stop: %T is not a source of this harness", src)
	}
	stop()
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
		ids[i], withIDs[i] = id.String(), outbox.EventWithID{ID: id, Event: e}
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

// jetStreamHarness adds the stream, the durable consumer, and what happened to each stream
// message: the deliveries the suite's sources claimed and the acks they sent, in the order they
// happened.
type jetStreamHarness struct {
	*busHarness
	js    jetstream.JetStream
	snoop *Conn
	seen  chan *natsgo.Msg // acks as the snoop received them, not yet recorded
	ids   sync.Map         // stream sequence → event id

	logMu sync.Mutex
	last  map[uint64]copyState // stream sequence → the latest claim or ack of that message
}

// copyState is the latest thing that happened to one stream message: one of its deliveries was
// claimed, or a consumer sent an ack for one.
type copyState struct {
	delivered int
	claimed   bool
	ack       jsAck
}

// jsAck is one ack a consumer sent, parsed from its subject and body.
type jsAck struct {
	kind   string // +ACK, -NAK, +TERM
	delay  time.Duration
	reason string
}

func newJetStreamHarness(t *testing.T) deliverytest.Harness {
	h := &jetStreamHarness{busHarness: newBusHarness(t, JetStream), seen: make(chan *natsgo.Msg, 1<<12), last: map[uint64]copyState{}}
	h.js = newJetStream(t, h.conn)
	h.snoop = dial(t, h.url, h.log)
	if _, err := h.snoop.NATS().ChanSubscribe("$JS.ACK.EVENTS.worker.>", h.seen); err != nil {
		t.Fatal(err)
	}
	if err := h.snoop.NATS().Flush(); err != nil {
		t.Fatal(err)
	}
	return h
}

// catchUp records every ack the sources have sent so far (they all send on h.conn): once the
// server has answered a flush on each connection, the snoop has received them. Call it with
// logMu held.
func (h *jetStreamHarness) catchUp() error {
	if err := h.conn.NATS().Flush(); err != nil {
		return err
	}
	if err := h.snoop.NATS().Flush(); err != nil {
		return err
	}
	for {
		select {
		case m := <-h.seen:
			h.record(m)
		default:
			return nil
		}
	}
}

// record keeps an ack a consumer sent: $JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.…
func (h *jetStreamHarness) record(m *natsgo.Msg) {
	tokens := strings.Split(m.Subject, ".")
	if len(tokens) < 6 {
		return
	}
	delivered, _ := strconv.Atoi(tokens[4])
	seq, _ := strconv.ParseUint(tokens[5], 10, 64)
	kind, rest, _ := strings.Cut(string(m.Data), " ")
	a := jsAck{kind: kind}
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
	h.last[seq] = copyState{delivered: delivered, ack: a}
}

// claimed records deliveries a source handed out, after every ack sent before them.
func (h *jetStreamHarness) claimed(t *testing.T, msgs []delivery.Message) {
	h.logMu.Lock()
	defer h.logMu.Unlock()
	if err := h.catchUp(); err != nil {
		t.Errorf("catching up with the acks: %v", err)
		return
	}
	for _, m := range msgs {
		md, err := m.Ref.(jetstream.Msg).Metadata()
		if err != nil {
			t.Errorf("metadata: %v", err)
			continue
		}
		h.ids.Store(md.Sequence.Stream, m.EventID)
		h.last[md.Sequence.Stream] = copyState{delivered: m.Attempt, claimed: true}
	}
}

// jsMember is a Consumer whose claims the harness logs.
type jsMember struct {
	*Consumer
	h *jetStreamHarness
	t *testing.T
}

func (m *jsMember) Claim(ctx context.Context, max int) ([]delivery.Message, error) {
	msgs, err := m.Consumer.Claim(ctx, max)
	if len(msgs) > 0 {
		m.h.claimed(m.t, msgs)
	}
	return msgs, err
}

func (h *jetStreamHarness) Source(t *testing.T) delivery.Source {
	cons, err := h.js.Consumer(context.Background(), "EVENTS", "worker")
	if err != nil {
		t.Fatal(err)
	}
	c := NewConsumer(h.conn, cons, h.store.Ledger(), ConsumerConfig{Prefix: testPrefix, WaitMax: time.Second, Logger: h.log})
	m := &jsMember{Consumer: c, h: h, t: t}
	h.started(m, run(t, "consumer", c.Run)) // registered before the suite's pump, so it stops after it
	return m
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

// Outcome is what last happened to each copy of the event: a claimed delivery, or the latest
// ack sent for it; done only once every copy is acked. A copy a shutdown terminated as handed
// back to the relay is waiting for the relay's next copy, which, once published, decides.
func (h *jetStreamHarness) Outcome(t *testing.T, id string) deliverytest.Outcome {
	h.logMu.Lock()
	err := h.catchUp()
	last := maps.Clone(h.last)
	h.logMu.Unlock()
	if err != nil {
		t.Fatalf("catching up with the acks: %v", err)
	}
	var o, handedBack deliverytest.Outcome
	done, copies := 0, 0
	for seq, c := range last {
		if h.eventID(t, seq) != id {
			continue
		}
		if c.ack.kind == "+TERM" && c.ack.reason == HandedBackReason {
			handedBack = deliverytest.Outcome{State: deliverytest.Waiting, Attempts: c.delivered - 1}
			continue
		}
		copies++
		switch {
		case c.claimed:
			o = deliverytest.Outcome{State: deliverytest.Claimed, Attempts: c.delivered - 1}
		case c.ack.kind == "+ACK":
			done++
			if o.State == deliverytest.Unknown {
				o = deliverytest.Outcome{State: deliverytest.Done, Attempts: c.delivered}
			}
		case c.ack.kind == "-NAK":
			o = deliverytest.Outcome{State: deliverytest.Waiting, Attempts: c.delivered, Delay: c.ack.delay}
		case c.ack.kind == "+TERM":
			o = deliverytest.Outcome{State: deliverytest.DeadLettered, Attempts: c.delivered, Err: c.ack.reason}
		}
	}
	if copies == 0 && handedBack.State != deliverytest.Unknown {
		return handedBack
	}
	if o.State == deliverytest.Done && done < h.published(id) {
		return deliverytest.Outcome{} // a copy has not been settled yet
	}
	return o
}

// eventID is the event id of the stream's message at seq (its header, else its Nats-Msg-Id).
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
	id := eventID(m.Header)
	h.ids.Store(seq, id)
	return id
}

// coreHarness adds the queue-group members the suite asks for and what they settled.
type coreHarness struct {
	*busHarness
	mu      sync.Mutex
	members []*coreMember
}

// coreMember is a CoreConsumer that remembers what it claimed and has not settled yet (by event
// id and relay round), which events it acked, and the round of each it handed back.
type coreMember struct {
	*CoreConsumer
	mu       sync.Mutex
	open     map[roundKey]int
	acked    map[string]int
	returned map[string]int
}

// roundKey names one relay round of an event: the copy of it the relay published then.
type roundKey struct {
	id    string
	round int
}

func (c *coreMember) Claim(ctx context.Context, max int) ([]delivery.Message, error) {
	msgs, err := c.CoreConsumer.Claim(ctx, max)
	c.mu.Lock()
	for _, m := range msgs {
		c.open[roundKey{m.EventID, m.Handoffs}]++
	}
	c.mu.Unlock()
	return msgs, err
}

func (c *coreMember) Settle(ctx context.Context, results []delivery.Result) error {
	err := c.CoreConsumer.Settle(ctx, results)
	if err == nil {
		c.mu.Lock()
		for _, r := range results {
			if k := (roundKey{r.Msg.EventID, r.Msg.Handoffs}); c.open[k] > 0 {
				c.open[k]--
			}
			switch r.Kind {
			case delivery.Ack:
				c.acked[r.Msg.EventID]++
			case delivery.Return:
				c.returned[r.Msg.EventID] = r.Msg.Handoffs
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
		MaxAttempts: conformanceMaxAttempts, WaitMax: time.Second, Horizon: conformanceLease, Logger: h.log})
	if err != nil {
		t.Fatal(err)
	}
	stop := run(t, "core consumer", c.Run)        // registered before the suite's pump, so it stops after it
	if err := h.conn.NATS().Flush(); err != nil { // subscribed before anything is published
		t.Fatal(err)
	}
	m := &coreMember{CoreConsumer: c, open: map[roundKey]int{}, acked: map[string]int{}, returned: map[string]int{}}
	h.mu.Lock()
	h.members = append(h.members, m)
	h.mu.Unlock()
	h.started(m, stop)
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

// Outcome is a pending in-process retry (its delay and attempt), the dead-lettered row, or the
// acks of every copy; otherwise the outbox row, where core NATS keeps the rest: handed back
// (pending, or already taken again by the relay: a later round published, no attempt spent),
// or claimed (a member holds the copy of the round the relay last handed off).
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
	var status string
	var attempts, relays int
	var next int64
	err := h.db(t).QueryRow(`SELECT status, attempts, relays, next_attempt_at FROM event_queue WHERE event_id = ?`, id).
		Scan(&status, &attempts, &relays, &next)
	if errors.Is(err, sql.ErrNoRows) {
		// Published straight to the bus (PublishCopies): done once every copy is acked.
		if acked > 0 && acked >= h.published(id) {
			return deliverytest.Outcome{State: deliverytest.Done}
		}
		return deliverytest.Outcome{}
	}
	if err != nil {
		t.Fatal(err)
	}
	// An ack completes the event only if its row says so (a late ack of a handler whose claim
	// was taken over does not).
	if acked > 0 && status == "done" {
		return deliverytest.Outcome{State: deliverytest.Done}
	}
	current := roundKey{id, relays - 1} // the round the relay last handed off
	returned := -1
	for _, m := range members {
		m.mu.Lock()
		held := m.open[current] > 0
		if r, ok := m.returned[id]; ok {
			returned = max(returned, r)
		}
		m.mu.Unlock()
		if held && status == "relayed" {
			return deliverytest.Outcome{State: deliverytest.Claimed, Attempts: attempts}
		}
	}
	switch {
	case returned >= 0 && status == "pending":
		return deliverytest.Outcome{State: deliverytest.Waiting, Attempts: attempts, Delay: max(time.Until(time.UnixMilli(next)), 0)}
	case returned >= 0 && (status == "processing" || relays >= returned+2):
		// The relay took the handed-back row again, which it does once next_attempt_at has come.
		return deliverytest.Outcome{State: deliverytest.Waiting, Attempts: attempts}
	}
	return deliverytest.Outcome{}
}
