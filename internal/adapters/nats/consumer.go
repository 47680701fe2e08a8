package nats

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// WaitMaxDefault is how long one Wait long-polls the consumer for a message.
const WaitMaxDefault = 5 * time.Second

// maxTermReason bounds the reason sent with a terminated message.
const maxTermReason = 1 << 10

// Settler writes a consumer's settle in one store transaction: the ledger marks and the events'
// outcomes in their outbox rows (sqlstore.Ledger: the ledger, because the marks
// and the outcomes commit together).
type Settler interface {
	// SettleOutcomes reports, per outcome, whether it was superseded: the event is done, or a
	// later relay round owns its row, so the outcome changed nothing.
	SettleOutcomes(ctx context.Context, now time.Time, marks []delivery.Mark, outcomes []delivery.RowOutcome) ([]bool, error)
}

// ConsumerConfig tunes a Consumer; zero fields take the defaults.
type ConsumerConfig struct {
	Prefix  string        // NATS_SUBJECT_PREFIX: the subject names the event type
	WaitMax time.Duration // default WaitMaxDefault
	// Horizon is the relay's (RelayConfig.Horizon): a delivery that is not the last moves its
	// row's re-relay to its redelivery time plus this.
	Horizon time.Duration
	Logger  *slog.Logger
	Now     func() time.Time
	// OnRedelivery, if set, is called for each message JetStream delivers again (metrics).
	OnRedelivery func()
	// OnDeadLetter, if set, is called for each event the consumer dead-letters on its own (the
	// live max_deliver ran out before the engine's limit), for the dead-letter counter.
	OnDeadLetter func()
}

// Consumer is a durable JetStream pull consumer as a delivery.Source, so the same Pump, Engine
// and ledger that run the db backend run it. Claim fetches what is available now; Wait long-polls
// for the next message. Settle records the ledger marks and each event's outcome in its outbox
// row in one transaction, then acks (done), naks with the backoff (retry) or with the ledger
// claim's remaining lease (defer), terminates (dead letter) or naks at once (returned by a
// shutdown). While Run runs, every message between its fetch and its
// settle gets in-progress notices, so ack_wait never expires under a live handler or a queued
// message.
//
// A fetched message is this consumer's claim, and ack_wait is its lease: once a message has gone
// ack_wait without a notice (its worker stalled), JetStream delivers it again, to whichever
// consumer asks, and it takes any ack of that sequence from anyone. So Settle applies only the
// results of claims it still holds: a stale delivery's nak, term or hand-back is dropped (its
// ledger marks, which carry their own owner token, are still written) and the new owner alone
// decides the outcome. An ack always counts: every handler is done, whoever ran them.
type Consumer struct {
	conn       *Conn
	cons       jetstream.Consumer
	settler    Settler
	cfg        ConsumerConfig
	log        *slog.Logger
	now        func() time.Time
	maxDeliver int

	stash pending // fetched, not yet claimed

	mu       sync.Mutex
	held     map[jetstream.Msg]time.Time // fetched and not yet settled → when its lease last began
	ackWait  time.Duration               // the lease of a claim
	interval time.Duration               // between in-progress notices: a third of ack_wait
}

var _ delivery.Source = (*Consumer)(nil)

// NewConsumer wraps cons (from Setup); its live max_deliver and ack_wait decide when a nak is
// the last one and how often in-progress notices go. Run sends the notices.
func NewConsumer(conn *Conn, cons jetstream.Consumer, settler Settler, cfg ConsumerConfig) *Consumer {
	cfg.WaitMax = cmp.Or(cfg.WaitMax, WaitMaxDefault)
	info := cons.CachedInfo().Config
	cfg.Horizon = cmp.Or(cfg.Horizon, Horizon(info.MaxDeliver, info.AckWait, domain.BackoffBase))
	c := &Consumer{
		conn: conn, cons: cons, settler: settler, cfg: cfg,
		log:        cmp.Or(cfg.Logger, slog.Default()),
		now:        cfg.Now,
		maxDeliver: info.MaxDeliver,
		held:       map[jetstream.Msg]time.Time{},
		ackWait:    cmp.Or(info.AckWait, 30*time.Second), // nats-server's default
	}
	c.interval = c.ackWait / 3
	if c.now == nil {
		c.now = time.Now
	}
	return c
}

// Claim returns what Wait fetched plus up to max messages available now, without waiting.
func (c *Consumer) Claim(ctx context.Context, max int) ([]delivery.Message, error) {
	if c.conn.IsClosed() {
		return nil, errClosed
	}
	msgs := c.stash.take(max)
	if len(msgs) < max && c.conn.IsConnected() {
		asked := c.now() // no later than JetStream's delivery: when the claims' leases began at the latest
		batch, err := c.cons.FetchNoWait(max - len(msgs))
		if err != nil && len(msgs) == 0 {
			return nil, fmt.Errorf("fetch: %w", err)
		}
		if err == nil {
			for m := range batch.Messages() {
				msgs = append(msgs, c.hold(m, asked))
			}
			if err := batch.Error(); err != nil && len(msgs) == 0 {
				return nil, fmt.Errorf("fetch: %w", err)
			}
		}
	}
	return c.stash.firstOfEach(c.settleOriginals(ctx, msgs)), nil
}

// Wait long-polls for one message (kept for the next Claim), up to WaitMax or until ctx ends.
func (c *Consumer) Wait(ctx context.Context) error {
	if c.stash.len() > 0 {
		return nil
	}
	if !c.conn.WaitConnected(ctx, c.cfg.WaitMax) {
		if c.conn.IsClosed() {
			return errClosed
		}
		return nil // the loss is logged by the connection; keep quiet until it is back
	}
	// The poll ends with ctx, so no fetch outlives a shutdown.
	wctx, cancel := context.WithTimeout(ctx, c.cfg.WaitMax)
	defer cancel()
	asked := c.now()
	batch, err := c.cons.Fetch(1, jetstream.FetchContext(wctx))
	if err != nil {
		return fmt.Errorf("fetch: %w", err)
	}
	for m := range batch.Messages() {
		if ctx.Err() != nil {
			_ = m.Nak() // stopping: a message that still arrived for this poll goes straight back
			continue
		}
		// It may have come late in the poll: a notice starts its lease now, if it can be sent.
		since := c.renew(m)
		if since.IsZero() {
			since = asked
		}
		c.stash.put(c.hold(m, since))
	}
	if err := batch.Error(); err != nil && wctx.Err() == nil {
		return fmt.Errorf("fetch: %w", err)
	}
	return nil
}

// Settle records the ledger marks and the events' outcomes in one transaction, then tells
// JetStream each outcome. A failed write fails the call (the Pump retries it) before any message
// is acked. A failed ack is only logged: JetStream redelivers after ack_wait and the ledger skips
// the done handlers.
//
// A transient failure on the last delivery JetStream will make is a dead letter (the message is
// terminated and the row dead-lettered). A defer or a shutdown's return on the last delivery is
// no failure: the row is handed back to the relay, which publishes a fresh copy (when the held
// claim ends, or at once) without spending an attempt.
//
// A result whose claim lapsed (ack_wait passed without a notice, or it was settled before) is
// stale: only its ledger marks are written, and the message is left to its new owner. A lapsed
// ack still completes the event when every handler is done in the ledger; when one is not (its
// claim was taken over by the next delivery), that delivery settles it.
func (c *Consumer) Settle(ctx context.Context, results []delivery.Result) error {
	now := c.now()
	var owned, stale []delivery.Result
	var exhausted []bool // dead-lettered here, for want of deliveries
	var lapsed []bool    // an ack whose claim lapsed
	for _, r := range results {
		held := c.holds(r.Msg, now)
		if r.Kind != delivery.Ack && !held {
			stale = append(stale, r)
			continue
		}
		r, last := outbox.Exhaust(r, c.lastDelivery(r.Msg), fmt.Sprintf("max deliveries (%d) reached", c.maxDeliver))
		owned, exhausted, lapsed = append(owned, r), append(exhausted, last), append(lapsed, !held)
	}
	outcomes := make([]delivery.RowOutcome, len(owned))
	for i, r := range owned {
		// A shutdown's return is the copy's last delivery too: the row is handed back to the
		// relay, which publishes a fresh copy carrying the attempts spent, and this one is
		// terminated, so the shutdown spends none of them (JetStream would count a redelivery).
		outcomes[i] = outbox.Outcome(r, now, c.cfg.Horizon, c.lastDelivery(r.Msg) || r.Kind == delivery.Return)
	}
	superseded, err := c.settler.SettleOutcomes(ctx, now, collectMarks(results), outcomes)
	if err != nil {
		return fmt.Errorf("record outcomes: %w", err)
	}
	for _, r := range stale {
		if m, ok := r.Msg.Ref.(jetstream.Msg); ok {
			c.release(m)
		}
		c.log.WarnContext(ctx, "delivery outcome dropped: its claim lapsed (ack_wait passed without an in-progress notice), so JetStream delivers the event again and its new owner settles it",
			append(rowFields(r.Msg), "event_type", r.Msg.Type, "attempt", r.Msg.Attempt, "outcome", r.Kind.String(), "ack_wait", c.ackWait.String())...)
	}
	for i, r := range owned {
		m, ok := r.Msg.Ref.(jetstream.Msg)
		if !ok {
			c.log.Error("cannot settle a message this consumer did not fetch", rowFields(r.Msg)...)
			continue
		}
		c.release(m)
		log := c.log.With(append(rowFields(r.Msg), "event_type", r.Msg.Type, "attempt", r.Msg.Attempt)...)
		if superseded[i] && r.Kind == delivery.Ack && lapsed[i] {
			// A handler's ledger claim was taken over while this copy ran (or the event is
			// done): the delivery JetStream made after ack_wait decides, so this one is not acked.
			log.WarnContext(ctx, "delivery outcome dropped: its claim lapsed and a handler's ledger claim was taken over (or the event is done); the event's next delivery settles it",
				"outcome", r.Kind.String(), "ack_wait", c.ackWait.String())
			continue
		}
		if superseded[i] && r.Kind != delivery.Ack {
			// A later relay round owns the event (this copy outlived its horizon), or it is
			// done: that round's consumer decides, and this copy is terminated.
			log.InfoContext(ctx, "delivery outcome dropped: the event is done, or a later relay round owns it",
				"outcome", r.Kind.String(), "round", r.Msg.Handoffs)
			if err := m.TermWithReason("superseded by a later relay round"); err != nil {
				log.WarnContext(ctx, "could not terminate a superseded copy; JetStream redelivers it after ack_wait", "error", err)
			}
			continue
		}
		if exhausted[i] {
			if c.cfg.OnDeadLetter != nil {
				c.cfg.OnDeadLetter()
			}
			log.ErrorContext(ctx, "event dead-lettered: it exhausted max deliveries", "max_deliver", c.maxDeliver, "error", r.Err)
		}
		if r.Kind == delivery.Defer && c.lastDelivery(r.Msg) {
			log.WarnContext(ctx, "event ran out of deliveries while deferred: handed back to the relay, which publishes it again",
				"outcome", r.Kind.String(), "max_deliver", c.maxDeliver)
		}
		var err error
		switch r.Kind {
		case delivery.Ack:
			err = m.Ack()
		case delivery.Retry:
			err = m.NakWithDelay(r.Delay)
		case delivery.Defer:
			err = m.NakWithDelay(max(r.Until.Sub(now), 0))
		case delivery.DeadLetter:
			log.ErrorContext(ctx, "event terminated: dead-lettered in the outbox", "error", r.Err)
			err = m.TermWithReason(reason(r.Err))
		case delivery.Return:
			log.InfoContext(ctx, "event interrupted by shutdown: handed back to the relay, which publishes it again without spending an attempt")
			err = m.TermWithReason(HandedBackReason)
		default:
			err = fmt.Errorf("unknown outcome %v", r.Kind)
		}
		if err != nil {
			log.WarnContext(ctx, "could not tell JetStream the outcome; it redelivers after ack_wait",
				"outcome", r.Kind.String(), "error", err)
		}
	}
	return nil
}

// HandedBackReason is the reason a JetStream message is terminated with when a shutdown hands
// its event back to the relay.
const HandedBackReason = "handed back to the relay"

// lastDelivery reports whether JetStream will not deliver this message again after a nak: its
// own deliveries (not those of the event's earlier copies) reached max_deliver.
func (c *Consumer) lastDelivery(m delivery.Message) bool {
	return c.maxDeliver > 0 && m.Attempt-m.Prior >= c.maxDeliver
}

func (c *Consumer) message(m jetstream.Msg) delivery.Message {
	delivered := 1
	if md, err := m.Metadata(); err == nil {
		delivered = int(md.NumDelivered)
	}
	if delivered > 1 && c.cfg.OnRedelivery != nil {
		c.cfg.OnRedelivery()
	}
	prior := priorAttempts(m.Headers())
	return delivery.Message{
		EventID:  eventID(m.Headers()),
		RowID:    rowID(m.Headers()),
		Handoffs: round(m.Headers()),
		Type:     eventType(c.cfg.Prefix, m.Subject()),
		Payload:  m.Data(),
		Attempt:  prior + delivered,
		Prior:    prior,
		Ref:      m,
	}
}

// hold tracks a fetched message, whose lease began at since, for in-progress notices until it
// is settled.
func (c *Consumer) hold(m jetstream.Msg, since time.Time) delivery.Message {
	c.mu.Lock()
	c.held[m] = since
	c.mu.Unlock()
	return c.message(m)
}

// holds reports whether the message's claim is still this consumer's at now: fetched, not yet
// settled, and within ack_wait of its fetch or its last notice. The last delivery's claim does
// not go stale: JetStream gives it to no one else after max_deliver, so its outcome is still
// this consumer's to record (the row is all that is left of it).
func (c *Consumer) holds(msg delivery.Message, now time.Time) bool {
	m, ok := msg.Ref.(jetstream.Msg)
	if !ok {
		return true // not a JetStream message: Settle logs it
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	since, ok := c.held[m]
	return ok && (now.Sub(since) < c.ackWait || c.lastDelivery(msg))
}

// renew sends an in-progress notice for m and returns when its lease began: when the notice
// left, or the zero time (as good as lapsed) if it could not be sent.
func (c *Consumer) renew(m jetstream.Msg) time.Time {
	sent := c.now()
	if !c.conn.IsConnected() || m.InProgress() != nil {
		return time.Time{} // a lost notice costs at most a redelivery the ledger absorbs
	}
	return sent
}

func (c *Consumer) release(m jetstream.Msg) {
	c.mu.Lock()
	delete(c.held, m)
	c.mu.Unlock()
}

// Run sends an in-progress notice for every fetched, unsettled message each third of ack_wait
// until ctx ends, then returns nil. Start it with the pump and end it after the pump has
// returned: a message still running or queued when the notices stop is redelivered once its
// ack_wait runs out.
func (c *Consumer) Run(ctx context.Context) error {
	t := time.NewTicker(c.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		c.mu.Lock()
		held := make([]jetstream.Msg, 0, len(c.held))
		for m := range c.held {
			held = append(held, m)
		}
		c.mu.Unlock()
		for _, m := range held {
			since := c.renew(m)
			if since.IsZero() {
				continue
			}
			c.mu.Lock()
			if _, ok := c.held[m]; ok {
				c.held[m] = since
			}
			c.mu.Unlock()
		}
	}
}

func reason(err error) string {
	if err == nil {
		return "permanent failure"
	}
	s := err.Error()
	if len(s) > maxTermReason {
		s = s[:maxTermReason]
	}
	return s
}
