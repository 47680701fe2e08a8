package nats

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
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

// Outbox is the event queue as the relay uses it (*sqlite.Queue): it claims due rows with the
// same 600 s lease as the db consumer, and settles them (Ack marks a row done; Defer reschedules
// it without spending an attempt; Retry and DeadLetter spend one; Return hands it back).
type Outbox interface {
	Claim(ctx context.Context, max int) ([]delivery.Message, error)
	Settle(ctx context.Context, results []delivery.Result) error
	Wait(ctx context.Context) error
}

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
	Logger      *slog.Logger
	Now         func() time.Time
}

// Relay moves outbox rows to NATS: it claims rows, publishes each on its event's subject with
// Nats-Msg-Id set to the event id, and marks a row done once the broker has it. A transport
// failure (disconnected, timeout, no responders, no stream) defers the rows with a growing delay
// and pauses the relay; it never spends an attempt, so an outage cannot dead-letter anything.
type Relay struct {
	conn   *Conn
	js     jetstream.JetStream
	outbox Outbox
	cfg    RelayConfig
	log    *slog.Logger
	now    func() time.Time

	failures int       // consecutive rounds that hit a transport failure
	paused   time.Time // no claims before this
}

// NewRelay builds a relay publishing over conn.
func NewRelay(conn *Conn, outbox Outbox, cfg RelayConfig) (*Relay, error) {
	cfg.Mode = cmp.Or(cfg.Mode, JetStream)
	cfg.MaxInFlight = cmp.Or(cfg.MaxInFlight, MaxInFlightDefault)
	cfg.AckTimeout = cmp.Or(cfg.AckTimeout, AckTimeoutDefault)
	cfg.BackoffBase = cmp.Or(cfg.BackoffBase, domain.BackoffBase)
	if cfg.Prefix == "" {
		return nil, errors.New("nats relay: empty subject prefix")
	}
	r := &Relay{conn: conn, outbox: outbox, cfg: cfg, log: cmp.Or(cfg.Logger, slog.Default()), now: cfg.Now}
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
	return r, nil
}

// Run relays until ctx ends. A round in progress when ctx ends still waits for its PubAcks
// (bounded by AckTimeout) and settles, so nothing published is left claimed.
func (r *Relay) Run(ctx context.Context) error {
	backoff := 10 * time.Millisecond // for outbox (database) errors
	for ctx.Err() == nil {
		if wait := r.paused.Sub(r.now()); wait > 0 {
			sleep(ctx, wait)
			continue
		}
		if !r.conn.IsConnected() {
			// Claiming now would only defer rows; the connection's loss is already logged.
			r.conn.WaitConnected(ctx, time.Minute)
			continue
		}
		n, err := r.runOnce(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			r.log.Error("relay round failed", "error", err, "retry_in", backoff)
			sleep(ctx, backoff)
			backoff = min(2*backoff, 5*time.Second)
			continue
		}
		backoff = 10 * time.Millisecond
		if n == 0 {
			if err := r.outbox.Wait(ctx); err != nil && ctx.Err() == nil {
				r.log.Error("relay: waiting for events failed", "error", err)
				sleep(ctx, time.Second)
			}
		}
	}
	return nil
}

// runOnce claims one batch, publishes it and settles it, returning how many rows it claimed.
func (r *Relay) runOnce(ctx context.Context) (int, error) {
	msgs, err := r.outbox.Claim(ctx, r.cfg.MaxInFlight)
	if err != nil || len(msgs) == 0 {
		return 0, err
	}
	var errs []error
	if r.cfg.Mode == Core {
		errs = r.publishCore(msgs)
	} else {
		errs = r.publishJetStream(msgs)
	}
	results := r.outcomes(ctx, msgs, errs)
	return len(msgs), r.settle(ctx, results)
}

// message builds the NATS message for an outbox row.
func (r *Relay) message(m delivery.Message) (*natsgo.Msg, error) {
	subject, err := Subject(r.cfg.Prefix, m.Type)
	if err != nil {
		return nil, domain.Permanent(err)
	}
	nm := natsgo.NewMsg(subject)
	nm.Data = m.Payload
	if m.EventID != "" { // a foreign writer's row has no id: no dedup, no header
		nm.Header.Set(jetstream.MsgIDHeader, m.EventID)
	}
	return nm, nil
}

// publishJetStream publishes every message asynchronously, then waits for each PubAck. At most
// MaxInFlight are outstanding (the batch size, and the publisher's own limit).
func (r *Relay) publishJetStream(msgs []delivery.Message) []error {
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
// server before its rows are marked done.
func (r *Relay) publishCore(msgs []delivery.Message) []error {
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
func (r *Relay) outcomes(ctx context.Context, msgs []delivery.Message, errs []error) []delivery.Result {
	results := make([]delivery.Result, len(msgs))
	var transport error
	deferred := 0
	for i, m := range msgs {
		res := delivery.Result{Msg: m, Kind: delivery.Ack}
		switch err := errs[i]; {
		case err == nil:
		case domain.IsPermanent(err) || errors.Is(err, natsgo.ErrMaxPayload):
			res.Kind, res.Err = delivery.DeadLetter, fmt.Errorf("relay: %w", err)
			r.log.ErrorContext(ctx, "event dead-lettered: it can never be published", "event_id", m.EventID,
				"event_type", m.Type, "attempt", m.Attempt, "error", err)
		case isRejection(err):
			// The stream refused this message (not the transport): spend an attempt, so a
			// message the stream will never take ends dead-lettered with the reason kept.
			res.Kind, res.Err = delivery.Retry, fmt.Errorf("relay: stream rejected the message: %w", err)
			res.Delay = domain.ScaledBackoff(r.cfg.BackoffBase, m.Attempt)
			r.log.WarnContext(ctx, "relay: stream rejected an event", "event_id", m.EventID,
				"event_type", m.Type, "attempt", m.Attempt, "error", err, "delay", res.Delay.String())
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

// settle writes the round's outcomes, retrying while ctx lives: a row left unsettled stays
// claimed until its lease ends and is then republished (the broker drops the duplicate).
func (r *Relay) settle(ctx context.Context, results []delivery.Result) error {
	backoff := 10 * time.Millisecond
	for {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		err := r.outbox.Settle(sctx, results)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			r.log.Error("relay: settle failed at shutdown; the rows will be republished after their lease",
				"error", err, "rows", len(results))
			return err
		}
		r.log.Error("relay: settle failed", "error", err, "rows", len(results), "retry_in", backoff)
		sleep(ctx, backoff)
		backoff = min(2*backoff, 5*time.Second)
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
