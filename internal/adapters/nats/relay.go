package nats

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
)

// Mode is how events travel over NATS (NATS_MODE).
type Mode string

// The NATS modes.
const (
	// JetStream publishes to a stream and waits for its PubAck; the broker deduplicates by
	// event id and redelivers until a consumer acks.
	JetStream Mode = "jetstream"
	// Core publishes fire-and-forget: no dedup, no redelivery, lost while no worker listens.
	Core Mode = "core"
)

// Defaults for RelayConfig.
const (
	MaxInFlightDefault = 256
	AckTimeoutDefault  = 10 * time.Second
)

// RelayConfig tunes a Relay; zero fields take the defaults.
type RelayConfig struct {
	Prefix string // NATS_SUBJECT_PREFIX
	Mode   Mode   // default JetStream
	// MaxInFlight bounds the publishes awaiting a PubAck; it is also the claim size.
	MaxInFlight int
	// AckTimeout bounds the wait for one PubAck (JetStream) or the flush (core).
	AckTimeout time.Duration
	// BackoffBase starts the growing pause after a transport failure (domain.ScaledBackoff:
	// doubling, capped at 60 × base); default domain.BackoffBase.
	BackoffBase time.Duration
	// Horizon is how long a relayed row waits for its outcome before it is published again
	// (default Horizon(5, AckWaitDefault, BackoffBase)); pass Horizon(EVENT_QUEUE_MAX_ATTEMPTS,
	// NATS_ACK_WAIT, EVENT_QUEUE_BACKOFF_BASE).
	Horizon time.Duration
	// OnDeadLetter, if set, is called for each row the relay dead-letters (it can never be
	// published), for the dead-letter counter.
	OnDeadLetter func()
	Logger       *slog.Logger
	Now          func() time.Time
	// Paused, when set, hears the relay pause (true) after a transport failure and resume
	// (false): the worker's moviesdiary_relay_paused gauge.
	Paused func(paused bool)
}

// Relay moves outbox rows to NATS: it claims rows, publishes each on its event's subject with
// the event id in a header and Nats-Msg-Id naming the relay round, and records the handoff once
// the broker has it (JetStream's PubAck, core's flush): the row is then 'relayed' until a
// consumer records its outcome, and is published again if none comes within the Horizon
// (docs/adr/0002-outbox-outcomes.md). A row without an event id (a foreign writer's) cannot
// have its outcome recorded and is done at the handoff, as before. A transport
// failure (disconnected, timeout, no responders, no stream) defers the rows with a growing delay
// and pauses the relay; it never spends an attempt, so an outage cannot dead-letter anything.
// The claiming, the waiting and the settling are the delivery.Pump's; the relay is its
// Dispatcher.
type Relay struct {
	pump *delivery.Pump
}

// publisher is the relay's delivery.Dispatcher: one claimed batch at a time, published at once
// and awaited. Only the pump's claim loop calls it, so its state needs no lock.
type publisher struct {
	conn *Conn
	js   jetstream.JetStream
	cfg  RelayConfig
	log  *slog.Logger
	now  func() time.Time

	failures int       // consecutive rounds that hit a transport failure
	paused   time.Time // no claims before this
}

var _ delivery.Dispatcher = (*publisher)(nil)

// NewRelay builds a relay that claims from outbox (the event queue, with the same 600 s lease
// as the db consumer) and publishes over conn.
func NewRelay(conn *Conn, outbox delivery.Source, cfg RelayConfig) (*Relay, error) {
	cfg.Mode = cmp.Or(cfg.Mode, JetStream)
	cfg.MaxInFlight = cmp.Or(cfg.MaxInFlight, MaxInFlightDefault)
	cfg.AckTimeout = cmp.Or(cfg.AckTimeout, AckTimeoutDefault)
	cfg.BackoffBase = cmp.Or(cfg.BackoffBase, domain.BackoffBase)
	cfg.Horizon = cmp.Or(cfg.Horizon, Horizon(5, AckWaitDefault, cfg.BackoffBase))
	if cfg.Prefix == "" {
		return nil, errors.New("nats relay: empty subject prefix")
	}
	r := &publisher{conn: conn, cfg: cfg, log: cmp.Or(cfg.Logger, slog.Default()), now: cfg.Now}
	if r.now == nil {
		r.now = time.Now
	}
	switch cfg.Mode {
	case JetStream:
		js, err := jetstream.New(conn.NATS(),
			jetstream.WithPublishAsyncMaxPending(cfg.MaxInFlight),
			jetstream.WithPublishAsyncTimeout(cfg.AckTimeout))
		if err != nil {
			return nil, fmt.Errorf("nats relay: %w", err)
		}
		r.js = js
	case Core:
	default:
		return nil, fmt.Errorf("nats relay: unknown mode %q", cfg.Mode)
	}
	pump := delivery.NewPumpTo(outbox, r, delivery.PumpConfig{BatchSize: cfg.MaxInFlight, Logger: r.log.With("part", "relay")})
	return &Relay{pump: pump}, nil
}

// Run relays until ctx ends and returns nil once the round in progress has had its PubAcks
// (bounded by AckTimeout) and is settled, so nothing published is left claimed. It returns an
// error if the connection is closed for good.
func (r *Relay) Run(ctx context.Context) error {
	if err := r.pump.Run(ctx); err != nil {
		return fmt.Errorf("nats relay: %w", err)
	}
	return nil
}

// Ready holds the claims while the relay is paused after a transport failure, and while the
// connection is down: claiming then would only defer rows (the loss is logged by the connection).
func (r *publisher) Ready(ctx context.Context) (time.Duration, error) {
	if r.conn.IsClosed() {
		return 0, errClosed
	}
	if wait := r.paused.Sub(r.now()); wait > 0 {
		return wait, nil
	}
	for !r.conn.IsConnected() && ctx.Err() == nil {
		if r.conn.IsClosed() {
			return 0, errClosed
		}
		r.conn.WaitConnected(ctx, time.Minute)
	}
	return 0, nil
}

// Dispatch publishes a claimed batch and returns each row's outcome.
func (r *publisher) Dispatch(ctx context.Context, msgs []delivery.Message) []delivery.Result {
	var errs []error
	if r.cfg.Mode == Core {
		errs = r.publishCore(msgs)
	} else {
		errs = r.publishJetStream(msgs)
	}
	return r.outcomes(ctx, msgs, errs)
}

// message builds the NATS message for an outbox row.
func (r *publisher) message(m delivery.Message) (*natsgo.Msg, error) {
	subject, err := Subject(r.cfg.Prefix, m.Type)
	if err != nil {
		return nil, domain.Permanent(err)
	}
	nm := natsgo.NewMsg(subject)
	nm.Data = m.Payload
	switch {
	case m.EventID != "":
		nm.Header.Set(EventIDHeader, m.EventID)
		nm.Header.Set(jetstream.MsgIDHeader, msgID(m))
	case m.RowID != 0: // a foreign writer's row has no id: no dedup, only its row to key it by
		nm.Header.Set(RowIDHeader, strconv.FormatInt(m.RowID, 10))
	}
	if spent := m.Attempt - 1; spent > 0 {
		nm.Header.Set(AttemptsHeader, strconv.Itoa(spent))
	}
	return nm, nil
}

// publishJetStream publishes every message asynchronously, then waits for each PubAck. At most
// MaxInFlight are outstanding (the batch size, and the publisher's own limit).
func (r *publisher) publishJetStream(msgs []delivery.Message) []error {
	errs := make([]error, len(msgs))
	futures := make([]jetstream.PubAckFuture, len(msgs))
	for i, m := range msgs {
		nm, err := r.message(m)
		if err == nil {
			futures[i], err = r.js.PublishMsgAsync(nm)
		}
		errs[i] = err
	}
	for i, f := range futures {
		if f == nil {
			continue
		}
		// Every future resolves: the publisher times it out after AckTimeout and fails it
		// at once on a disconnect.
		select {
		case <-f.Ok():
		case err := <-f.Err():
			errs[i] = err
		}
	}
	return errs
}

// publishCore publishes fire-and-forget, then flushes so the batch has at least reached the
// server before its handoff is recorded. Core NATS drops what no subscriber takes; the row then
// waits for its horizon and is published again.
func (r *publisher) publishCore(msgs []delivery.Message) []error {
	errs := make([]error, len(msgs))
	published := false
	for i, m := range msgs {
		nm, err := r.message(m)
		if err == nil {
			err = r.conn.NATS().PublishMsg(nm)
			published = published || err == nil
		}
		errs[i] = err
	}
	if published {
		if err := r.conn.NATS().FlushTimeout(r.cfg.AckTimeout); err != nil {
			for i := range errs {
				if errs[i] == nil {
					errs[i] = fmt.Errorf("flush: %w", err)
				}
			}
		}
	}
	return errs
}

// outcomes turns publish errors into settle results and pauses the relay on a transport failure.
func (r *publisher) outcomes(ctx context.Context, msgs []delivery.Message, errs []error) []delivery.Result {
	results := make([]delivery.Result, len(msgs))
	var transport error
	deferred := 0
	for i, m := range msgs {
		res := delivery.Result{Msg: m, Kind: delivery.Ack}
		switch err := errs[i]; {
		case err == nil && m.EventID != "":
			res.Kind, res.Until = delivery.Handoff, r.now().Add(r.cfg.Horizon)
		case err == nil: // no event id: no outcome can be recorded, so the handoff is the end
		case domain.IsPermanent(err) || errors.Is(err, natsgo.ErrMaxPayload):
			res.Kind, res.Err = delivery.DeadLetter, fmt.Errorf("relay: %w", err)
			if r.cfg.OnDeadLetter != nil {
				r.cfg.OnDeadLetter()
			}
			r.log.ErrorContext(ctx, "event dead-lettered: it can never be published",
				append(rowFields(m), "event_type", m.Type, "attempt", m.Attempt, "error", err)...)
		case isRejection(err):
			// The stream refused this message (not the transport): spend an attempt, so a
			// message the stream will never take ends dead-lettered with the reason kept.
			res.Kind, res.Err = delivery.Retry, fmt.Errorf("relay: stream rejected the message: %w", err)
			res.Delay = domain.ScaledBackoff(r.cfg.BackoffBase, m.Attempt)
			r.log.WarnContext(ctx, "relay: stream rejected an event",
				append(rowFields(m), "event_type", m.Type, "attempt", m.Attempt, "error", err, "delay", res.Delay.String())...)
		default:
			res.Kind = delivery.Defer
			transport = cmp.Or(transport, err)
			deferred++
		}
		results[i] = res
	}
	if transport == nil {
		if r.failures > 0 {
			r.log.InfoContext(ctx, "relay resumed: publishing again", "after_failed_rounds", r.failures)
			if r.cfg.Paused != nil {
				r.cfg.Paused(false)
			}
		}
		r.failures = 0
		return results
	}
	r.failures++
	pause := domain.ScaledBackoff(r.cfg.BackoffBase, r.failures)
	r.paused = r.now().Add(pause)
	for i := range results {
		if results[i].Kind == delivery.Defer {
			results[i].Until = r.paused
		}
	}
	if r.cfg.Paused != nil {
		r.cfg.Paused(true)
	}
	r.log.WarnContext(ctx, "relay paused: publishing failed; events deferred without spending an attempt",
		"error", transport, "deferred", deferred, "resume_in", pause.String(), "failed_rounds", r.failures)
	return results
}

// isRejection reports whether err is the stream refusing this message (a 4xx API error such as
// a size limit) rather than the bus being unreachable, overloaded or without the stream (404),
// which are transport failures.
func isRejection(err error) bool {
	var apiErr *jetstream.APIError
	if !errors.As(err, &apiErr) {
		return false
	}
	return apiErr.Code >= 400 && apiErr.Code < 500 && apiErr.Code != 404 && apiErr.Code != 408
}
