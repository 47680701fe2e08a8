package nats

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	natsgo "github.com/nats-io/nats.go"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// coreBuffer bounds the messages received and not yet claimed; beyond it the subscription's own
// pending limits apply (and core NATS drops what overflows them).
const coreBuffer = 1024

// CoreConfig tunes a CoreConsumer; zero fields take the defaults.
type CoreConfig struct {
	Prefix string // NATS_SUBJECT_PREFIX
	// Group is the queue group (NATS_CONSUMER_NAME): each event goes to one worker of the group.
	Group string
	// MaxAttempts bounds the in-process retries of a failed event (EVENT_QUEUE_MAX_ATTEMPTS).
	MaxAttempts int
	WaitMax     time.Duration // default WaitMaxDefault
	// Horizon is the relay's (RelayConfig.Horizon): an in-process retry moves its row's
	// re-relay to its due time plus this.
	Horizon time.Duration
	// OnDeadLetter, if set, is called for each event the consumer dead-letters on its own (its
	// last in-process retry failed), for the dead-letter counter.
	OnDeadLetter func()
	Logger       *slog.Logger
	Now          func() time.Time
}

// CoreConsumer is a core NATS queue-group subscription as a delivery.Source (NATS_MODE=core).
// Core NATS is fire-and-forget on the wire: no broker redelivery, and an event published while
// no worker listens is dropped. The outbox makes it at-least-once: Settle records each event's
// outcome in its row (done, dead-lettered, or handed back to the relay at shutdown), and a row
// with no outcome is published again after the relay's horizon. Meanwhile the consumer retries a
// failed event in process on the usual backoff, up to MaxAttempts. The ledger stops a repeated
// event id from running a handler twice. Run owns the subscription's end: when its context ends
// it leaves the queue group, hands the events it received but no pump claimed back to the relay
// (published again at once, no attempt spent), and drops the pending retries (their rows are
// re-relayed after the horizon).
type CoreConsumer struct {
	conn    *Conn
	sub     *natsgo.Subscription
	in      chan delivery.Message
	settler Settler
	cfg     CoreConfig
	log     *slog.Logger
	now     func() time.Time

	stash pending // received, not yet claimed

	mu      sync.Mutex
	retries map[*time.Timer]retry
	closed  chan struct{} // closed by Run's end: no more deliveries or retries
}

// retry is an in-process redelivery waiting for its timer.
type retry struct {
	msg   delivery.Message
	delay time.Duration // how long after its settle it comes back
}

var _ delivery.Source = (*CoreConsumer)(nil)

// SubscribeCore joins the queue group on every event subject; call Run to end it.
func SubscribeCore(conn *Conn, settler Settler, cfg CoreConfig) (*CoreConsumer, error) {
	cfg.WaitMax = cmp.Or(cfg.WaitMax, WaitMaxDefault)
	cfg.MaxAttempts = cmp.Or(cfg.MaxAttempts, 5)
	cfg.Horizon = cmp.Or(cfg.Horizon, Horizon(cfg.MaxAttempts, AckWaitDefault, domain.BackoffBase))
	c := &CoreConsumer{
		conn: conn,
		in:   make(chan delivery.Message, coreBuffer), settler: settler, cfg: cfg,
		log:     cmp.Or(cfg.Logger, slog.Default()),
		now:     cfg.Now,
		retries: map[*time.Timer]retry{},
		closed:  make(chan struct{}),
	}
	if c.now == nil {
		c.now = time.Now
	}
	sub, err := conn.NATS().QueueSubscribe(Wildcard(cfg.Prefix), cfg.Group, func(m *natsgo.Msg) {
		prior := priorAttempts(m.Header)
		msg := delivery.Message{
			EventID:  eventID(m.Header),
			RowID:    rowID(m.Header),
			Handoffs: round(m.Header),
			Type:     eventType(cfg.Prefix, m.Subject),
			Payload:  m.Data,
			Attempt:  prior + 1,
			Prior:    prior,
		}
		select { // blocking hands backpressure to the subscription's pending buffer
		case c.in <- msg:
		case <-c.closed:
		}
	})
	if err != nil {
		return nil, fmt.Errorf("nats subscribe %s: %w", Wildcard(cfg.Prefix), err)
	}
	c.sub = sub
	return c, nil
}

// Claim returns up to max received messages without waiting.
func (c *CoreConsumer) Claim(_ context.Context, max int) ([]delivery.Message, error) {
	msgs := c.stash.take(max)
fill:
	for len(msgs) < max {
		select {
		case m := <-c.in:
			msgs = append(msgs, m)
		default:
			break fill
		}
	}
	return c.stash.firstOfEach(msgs), nil
}

// Wait blocks until a message arrives (kept for the next Claim), WaitMax passes or ctx ends.
func (c *CoreConsumer) Wait(ctx context.Context) error {
	if c.stash.len() > 0 {
		return nil
	}
	if c.conn.IsClosed() {
		return errClosed
	}
	t := time.NewTimer(c.cfg.WaitMax)
	defer t.Stop()
	select {
	case m := <-c.in:
		c.stash.put(m)
	case <-t.C:
	case <-ctx.Done():
	}
	return nil
}

// Settle records the ledger marks and the events' outcomes in their outbox rows, then schedules
// in-process retries: a transient failure comes back after its backoff with the next attempt
// number, a deferred event when the blocking claim expires (each moving the row's re-relay past
// that time). A permanent failure and the last attempt are dead-lettered in the row; an event
// abandoned by a shutdown is handed back to the relay, which publishes it again at once.
func (c *CoreConsumer) Settle(ctx context.Context, results []delivery.Result) error {
	now := c.now()
	outcomes := make([]delivery.RowOutcome, len(results))
	exhausted := make([]bool, len(results)) // dead-lettered here, for want of attempts
	reason := fmt.Sprintf("max attempts (%d) reached", c.cfg.MaxAttempts)
	for i := range results {
		r := &results[i]
		*r, exhausted[i] = outbox.Exhaust(*r, r.Msg.Attempt >= c.cfg.MaxAttempts, reason)
		// Only a return is the copy's last delivery: everything else is retried in process.
		outcomes[i] = outbox.Outcome(*r, now, c.cfg.Horizon, r.Kind == delivery.Return)
	}
	superseded, err := c.settler.SettleOutcomes(ctx, now, collectMarks(results), outcomes)
	if err != nil {
		return fmt.Errorf("record outcomes: %w", err)
	}
	for i, r := range results {
		m := r.Msg
		log := c.log.With(append(rowFields(m), "event_type", m.Type, "attempt", m.Attempt)...)
		if superseded[i] {
			// The relay has published a later round (this copy outlived its horizon), or the
			// event is done: that round's consumer decides, so this copy is dropped.
			log.InfoContext(ctx, "delivery outcome dropped: the event is done, or a later relay round owns it",
				"outcome", r.Kind.String(), "round", m.Handoffs)
			continue
		}
		switch r.Kind {
		case delivery.Retry:
			m.Attempt++
			c.redeliver(m, r.Delay)
		case delivery.Defer:
			c.redeliver(m, max(r.Until.Sub(now), 0))
		case delivery.DeadLetter:
			if c.cfg.OnDeadLetter != nil && exhausted[i] {
				c.cfg.OnDeadLetter()
			}
			log.ErrorContext(ctx, "event dead-lettered in the outbox", "error", r.Err)
		case delivery.Return:
			log.InfoContext(ctx, "event interrupted by shutdown: handed back to the relay")
		}
	}
	return nil
}

func (c *CoreConsumer) redeliver(m delivery.Message, after time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.closed: // settled after Run ended: nothing will claim it again
		c.log.Warn("in-process retry dropped at shutdown; the relay publishes the event again after its horizon",
			append(rowFields(m), "event_type", m.Type, "attempt", m.Attempt)...)
		return
	default:
	}
	var t *time.Timer
	t = time.AfterFunc(after, func() {
		c.mu.Lock()
		_, pending := c.retries[t]
		delete(c.retries, t)
		c.mu.Unlock()
		if !pending {
			return // Run ended first
		}
		select {
		case c.in <- m:
		case <-c.closed:
		}
	})
	c.retries[t] = retry{msg: m, delay: after}
}

// Run waits for ctx to end, then leaves the queue group, hands back to the relay the events it
// received that no pump claimed (those the server sent before it saw the group left included),
// and drops the retries still pending, logging each. End it after the pump has returned, so
// that no result is settled after it. It returns an error only if leaving the group failed.
func (c *CoreConsumer) Run(ctx context.Context) error {
	<-ctx.Done()
	var unclaimed []delivery.Message
	left := c.sub.StatusChanged(natsgo.SubscriptionClosed)
	err := c.sub.Drain() // the callback keeps running for what was already sent
	if err == nil {
		unclaimed = c.drain(left)
	}
	if errors.Is(err, natsgo.ErrConnectionClosed) || errors.Is(err, natsgo.ErrBadSubscription) {
		err = nil // the connection went first, and the subscription with it
	}
	c.mu.Lock()
	close(c.closed)
	for t, r := range c.retries {
		t.Stop()
		c.log.Warn("in-process retry dropped at shutdown; the relay publishes the event again after its horizon",
			append(rowFields(r.msg), "event_type", r.msg.Type, "attempt", r.msg.Attempt)...)
	}
	clear(c.retries)
	c.mu.Unlock()
	for len(c.in) > 0 {
		unclaimed = append(unclaimed, <-c.in)
	}
	c.handBack(append(c.stash.take(c.stash.len()), unclaimed...))
	if err != nil {
		return fmt.Errorf("nats core: leave queue group: %w", err)
	}
	return nil
}

// drain collects what the subscription still delivers until it has closed (left signals it),
// so that no callback blocks on a full buffer meanwhile; it gives up after WaitMax.
func (c *CoreConsumer) drain(left <-chan natsgo.SubStatus) []delivery.Message {
	var msgs []delivery.Message
	t := time.NewTimer(c.cfg.WaitMax)
	defer t.Stop()
	for {
		select {
		case m := <-c.in:
			msgs = append(msgs, m)
		case <-left:
			return msgs
		case <-t.C:
			c.log.Warn("nats core: the subscription did not finish draining; what it still receives is relayed again after the horizon",
				"waited", c.cfg.WaitMax.String())
			return msgs
		}
	}
}

// handBack records the events received but never started as handed back to the relay, which
// publishes them again at once without spending an attempt, as a shutdown's Return does.
func (c *CoreConsumer) handBack(msgs []delivery.Message) {
	now := c.now()
	var outcomes []delivery.RowOutcome
	for _, m := range msgs {
		if m.EventID == "" {
			continue // no row to hand back (done at its handoff)
		}
		outcomes = append(outcomes, outbox.Outcome(delivery.Result{Msg: m, Kind: delivery.Return}, now, c.cfg.Horizon, true))
	}
	if len(outcomes) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.settler.SettleOutcomes(ctx, now, nil, outcomes); err != nil {
		c.log.Warn("events received but not started could not be handed back at shutdown; the relay publishes them again after its horizon",
			"count", len(outcomes), "error", err)
		return
	}
	c.log.Info("events received but not started handed back to the relay at shutdown", "count", len(outcomes))
}

func collectMarks(results []delivery.Result) []delivery.Mark {
	var marks []delivery.Mark
	for _, r := range results {
		marks = append(marks, r.Marks...)
	}
	return marks
}
