package delivery

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"time"

	"moviesdiary/internal/domain"
)

// Defaults for Config, from the outbox decision record.
const (
	LedgerLeaseDefault = 1800 * time.Second
	BackoffBaseDefault = domain.BackoffBase
)

// Config tunes an Engine; zero fields take the defaults above.
type Config struct {
	// LedgerLease is how long a ledger claim protects a running handler before another delivery
	// may take it over.
	LedgerLease time.Duration
	// BackoffBase scales domain.RetryBackoff (5 s in production; tests shrink it).
	BackoffBase time.Duration
	// MaxAttempts is the source's delivery limit (EVENT_QUEUE_MAX_ATTEMPTS, JetStream's
	// max_deliver). A transient failure on that delivery dead-letters the event here, counted and
	// logged as such rather than as "will be retried". 0: the engine never decides it, the source
	// does.
	MaxAttempts int
	Logger      *slog.Logger
	Now         func() time.Time
	// Observer receives per-handler outcomes for metrics (optional).
	Observer Observer
}

// Engine dispatches messages to the handlers registered for their type, guarded by the ledger.
type Engine struct {
	byType map[string][]Handler
	ledger Ledger
	lease  time.Duration
	base   time.Duration
	max    int
	log    *slog.Logger
	now    func() time.Time
	obs    Observer
}

// NewEngine registers handlers; names must be unique and non-empty, since they key the ledger.
func NewEngine(cfg Config, ledger Ledger, handlers ...Handler) (*Engine, error) {
	e := &Engine{
		byType: map[string][]Handler{},
		ledger: ledger,
		lease:  cmp.Or(cfg.LedgerLease, LedgerLeaseDefault),
		base:   cmp.Or(cfg.BackoffBase, BackoffBaseDefault),
		max:    cfg.MaxAttempts,
		log:    cmp.Or(cfg.Logger, slog.Default()),
		now:    cfg.Now,
		obs:    cfg.Observer,
	}
	if e.obs == nil {
		e.obs = nopObserver{}
	}
	if e.now == nil {
		e.now = time.Now
	}
	seen := map[string]bool{}
	for _, h := range handlers {
		if h.Name == "" || h.Handle == nil {
			return nil, fmt.Errorf("delivery: handler %q needs a name and a Handle func", h.Name)
		}
		if seen[h.Name] {
			return nil, fmt.Errorf("delivery: two handlers named %q", h.Name)
		}
		seen[h.Name] = true
		for _, t := range h.Types {
			e.byType[t] = append(e.byType[t], h)
		}
	}
	return e, nil
}

// Job is a prepared delivery: the decoded event, its handlers and their ledger claims.
type Job struct {
	Msg       Message
	event     domain.Event
	decodeErr error
	handlers  []Handler
	claims    []Claim // parallel to handlers; nil when the event has no id (no dedup)
	ledgerErr error
}

// Prepare decodes a batch and claims the ledger for every (event, handler) pair in one call.
func (e *Engine) Prepare(ctx context.Context, msgs []Message) []Job {
	jobs := make([]Job, len(msgs))
	var keys []Key
	for i, m := range msgs {
		j := &jobs[i]
		j.Msg = m
		j.event, j.decodeErr = domain.Decode(m.Type, m.Payload)
		if j.decodeErr != nil {
			continue
		}
		j.handlers = e.byType[m.Type]
		if m.EventID == "" {
			continue
		}
		for _, h := range j.handlers {
			keys = append(keys, Key{EventID: m.EventID, Handler: h.Name})
		}
	}
	if len(keys) == 0 {
		return jobs
	}
	claims, err := e.ledger.Claim(ctx, e.now(), e.lease, keys)
	if err == nil && len(claims) != len(keys) {
		err = fmt.Errorf("ledger answered %d claims for %d keys", len(claims), len(keys))
	}
	k := 0
	for i := range jobs {
		j := &jobs[i]
		if j.decodeErr != nil || j.Msg.EventID == "" || len(j.handlers) == 0 {
			continue
		}
		if err != nil {
			j.ledgerErr = fmt.Errorf("ledger claim: %w", err)
			k += len(j.handlers)
			continue
		}
		j.claims = claims[k : k+len(j.handlers)]
		k += len(j.handlers)
	}
	return jobs
}

// Release is the Result for a job that will not run (a shutdown): its claims are released and
// the message goes back without spending an attempt.
func (e *Engine) Release(j Job) Result {
	r := Result{Msg: j.Msg, Kind: Return}
	for _, c := range j.claims {
		if c.State == Acquired {
			r.Marks = append(r.Marks, Mark{Key: c.Key, Token: c.Token})
		}
	}
	return r
}

// Run executes a prepared job's handlers in order and decides the outcome. When stopping is
// done (closed) and a handler fails, the failure is blamed on the shutdown: the message is
// returned, not retried.
func (e *Engine) Run(ctx context.Context, j Job, stopping <-chan struct{}) Result {
	r := Result{Msg: j.Msg, Kind: Ack}
	final := e.max > 0 && j.Msg.Attempt >= e.max
	if j.decodeErr != nil {
		r.Kind, r.Err = DeadLetter, j.decodeErr
		e.obs.HandlerOutcome(NoHandler, OutcomeDeadLettered, 0)
		e.logEvent(ctx, slog.LevelError, "event dead-lettered: undecodable", j.Msg, "", slog.Any("error", j.decodeErr))
		return r
	}
	if j.ledgerErr != nil {
		if final {
			r.Kind, r.Err = DeadLetter, fmt.Errorf("max attempts (%d) reached: %w", e.max, j.ledgerErr)
			e.obs.HandlerOutcome(NoHandler, OutcomeDeadLettered, 0)
			e.logEvent(ctx, slog.LevelError, "event dead-lettered: ledger unavailable on the last attempt", j.Msg, "",
				slog.Any("error", j.ledgerErr))
			return r
		}
		r.Kind, r.Err, r.Delay = Retry, j.ledgerErr, domain.ScaledBackoff(e.base, j.Msg.Attempt)
		e.logEvent(ctx, slog.LevelWarn, "event will be retried: ledger unavailable, handlers skipped", j.Msg, "",
			slog.Any("error", j.ledgerErr), slog.String("delay", r.Delay.String()))
		return r
	}
	if err := e.renew(ctx, &j, 0); err != nil {
		r.Kind, r.Err, r.Delay = Retry, err, domain.ScaledBackoff(e.base, j.Msg.Attempt)
		e.logEvent(ctx, slog.LevelWarn, "event will be retried: ledger unavailable, handlers skipped", j.Msg, "",
			slog.Any("error", err), slog.String("delay", r.Delay.String()))
		return r
	}
	env := Envelope{EventID: j.Msg.EventID, RowID: j.Msg.RowID, Event: j.event, Attempt: j.Msg.Attempt}
	var failed, permanent error
	var held time.Time
	for i, h := range j.handlers {
		// The claims are renewed again before each handler (a no-op while they are young): a
		// worker stopped between two handlers of one job (SIGSTOP, a frozen VM) must not run the
		// next one on a claim another delivery took over meanwhile. Found by make chaos.
		if i > 0 {
			if err := e.renew(ctx, &j, i); err != nil {
				e.logEvent(ctx, slog.LevelWarn, "event will be retried: ledger unavailable, its remaining handlers skipped", j.Msg, h.Name,
					slog.Any("error", err))
				failed = cmp.Or(failed, err)
				break
			}
		}
		var c *Claim
		if j.claims != nil {
			c = &j.claims[i]
			switch c.State {
			case Done:
				e.obs.HandlerOutcome(h.Name, OutcomeSkipped, 0)
				e.logEvent(ctx, slog.LevelDebug, "handler skipped: already done", j.Msg, h.Name)
				continue
			case Held:
				e.obs.HandlerOutcome(h.Name, OutcomeDeferred, 0)
				held = later(held, c.HeldUntil)
				e.logEvent(ctx, slog.LevelInfo, "handler deferred: claim held by another delivery", j.Msg, h.Name,
					slog.Time("held_until", c.HeldUntil))
				continue
			}
		}
		if c != nil && c.TookOver {
			e.obs.LedgerTakeOver(h.Name)
			e.logEvent(ctx, slog.LevelWarn, "ledger claim taken over: its holder outlived the lease", j.Msg, h.Name)
		}
		start := time.Now()
		err := call(ctx, h, env)
		took := time.Since(start)
		if c != nil {
			r.Marks = append(r.Marks, Mark{Key: c.Key, Token: c.Token, Done: err == nil})
		}
		switch {
		case err == nil:
			e.obs.HandlerOutcome(h.Name, OutcomeDone, took)
			e.logEvent(ctx, slog.LevelDebug, "handler done", j.Msg, h.Name, slog.Duration("duration", took))
		case isClosed(stopping):
			e.obs.HandlerOutcome(h.Name, OutcomeInterrupted, took)
			e.logEvent(ctx, slog.LevelInfo, "handler interrupted by shutdown", j.Msg, h.Name, slog.Any("error", err))
			failed = cmp.Or(failed, err)
		case domain.IsPermanent(err):
			e.obs.HandlerOutcome(h.Name, OutcomeDeadLettered, took)
			e.logEvent(ctx, slog.LevelError, "handler failed permanently: event dead-lettered", j.Msg, h.Name, slog.Any("error", err))
			permanent = cmp.Or(permanent, fmt.Errorf("%s: %w", h.Name, err))
		case final:
			e.obs.HandlerOutcome(h.Name, OutcomeDeadLettered, took)
			e.logEvent(ctx, slog.LevelError, "handler failed on the last attempt: event dead-lettered", j.Msg, h.Name,
				slog.Any("error", err), slog.Int("max_attempts", e.max))
			failed = cmp.Or(failed, fmt.Errorf("%s: %w", h.Name, err))
		default:
			e.obs.HandlerOutcome(h.Name, OutcomeNacked, took)
			e.logEvent(ctx, slog.LevelWarn, "handler failed: event will be retried", j.Msg, h.Name, slog.Any("error", err),
				slog.String("retry_in", domain.ScaledBackoff(e.base, j.Msg.Attempt).String()))
			failed = cmp.Or(failed, fmt.Errorf("%s: %w", h.Name, err))
		}
	}
	switch {
	case isClosed(stopping) && (failed != nil || permanent != nil):
		r.Kind, r.Err = Return, cmp.Or(permanent, failed)
	case permanent != nil:
		r.Kind, r.Err = DeadLetter, permanent
	case failed != nil && final:
		r.Kind, r.Err = DeadLetter, fmt.Errorf("max attempts (%d) reached: %w", e.max, failed)
	case failed != nil:
		r.Kind, r.Err, r.Delay = Retry, failed, domain.ScaledBackoff(e.base, j.Msg.Attempt)
	case !held.IsZero():
		r.Kind, r.Until = Defer, held
	}
	// Failures were logged above, one line per failing handler; these are the other outcomes.
	switch r.Kind {
	case Ack:
		e.logEvent(ctx, slog.LevelDebug, "event delivered", j.Msg, "", slog.Int("handlers", len(j.handlers)))
	case Defer:
		e.logEvent(ctx, slog.LevelInfo, "event deferred: a handler's claim is held elsewhere", j.Msg, "", slog.Time("until", r.Until))
	case Return:
		e.logEvent(ctx, slog.LevelInfo, "event returned to the queue by shutdown", j.Msg, "")
	}
	return r
}

// renewAfter is the fraction of the ledger lease a job's claims may age before its handlers run
// without renewing them first.
const renewAfter = 4

// renew renews the job's acquired ledger claims when they have aged past a quarter of the lease
// since Prepare took them (or since their last renewal), before the job's handlers run and again
// before each of them (docs/adr/0006-ledger-claims-renewed-before-each-handler.md): a job waits in the pump's local queue (behind a full batch, or in a
// worker that was stopped), and a claim that outlived the lease meanwhile may have been taken
// over by another delivery, whose handler must then be the only one to run. A claim still held
// gets the new token its marks will carry; a lost one is treated as held elsewhere (the event is
// deferred, no attempt spent). Found by make chaos: a worker paused past the ledger lease ran its
// queued jobs' handlers beside the worker that had taken their claims over.
//
// Only the claims of handlers from the from-th on are renewed: those of the handlers that already
// ran keep the token their done marks carry.
func (e *Engine) renew(ctx context.Context, j *Job, from int) error {
	now := e.now()
	var marks []Mark
	var at []int
	for i, c := range j.claims {
		if i >= from && c.State == Acquired && now.Sub(time.UnixMilli(c.Token)) > e.lease/renewAfter {
			marks, at = append(marks, Mark{Key: c.Key, Token: c.Token}), append(at, i)
		}
	}
	if len(marks) == 0 {
		return nil
	}
	held, err := e.ledger.Renew(ctx, now, marks)
	if err == nil && len(held) != len(marks) {
		err = fmt.Errorf("ledger answered %d renewals for %d claims", len(held), len(marks))
	}
	if err != nil {
		return fmt.Errorf("renew ledger claims: %w", err)
	}
	claims := slices.Clone(j.claims) // a job's claims share the batch's slice
	for n, i := range at {
		if held[n] {
			claims[i].Token = now.UnixMilli()
			continue
		}
		claims[i] = Claim{Key: claims[i].Key, State: Held, HeldUntil: now.Add(e.lease)}
		e.logEvent(ctx, slog.LevelWarn, "ledger claim lost while the event waited: another delivery took it over", j.Msg, claims[i].Handler)
	}
	j.claims = claims
	return nil
}

// logEvent writes one delivery line with the fields every such line carries; it costs nothing
// when the level is disabled, which matters at tens of thousands of events a second.
func (e *Engine) logEvent(ctx context.Context, level slog.Level, msg string, m Message, handler string, attrs ...slog.Attr) {
	if !e.log.Enabled(ctx, level) {
		return
	}
	all := make([]slog.Attr, 0, 4+len(attrs))
	all = append(all, slog.String("event_id", m.EventID), slog.String("event_type", m.Type), slog.Int("attempt", m.Attempt))
	// A foreign writer's row has no event id: its source's row id is what finds it
	// (`worker events show <row id>`).
	if m.EventID == "" {
		if row := m.RowID; row != 0 {
			all = append(all, slog.Int64("row_id", row))
		} else if r, ok := m.Ref.(interface{ RowID() int64 }); ok {
			all = append(all, slog.Int64("row_id", r.RowID()))
		}
	}
	if handler != "" {
		all = append(all, slog.String("handler", handler))
	}
	e.log.LogAttrs(ctx, level, msg, append(all, attrs...)...)
}

// call runs one handler, turning a panic into a transient error with its stack in the log.
func call(ctx context.Context, h Handler, env Envelope) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("handler panicked: %v\n%s", p, debug.Stack())
		}
	}()
	if err := ctx.Err(); err != nil {
		return err
	}
	return h.Handle(ctx, env)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func isClosed(c <-chan struct{}) bool {
	if c == nil {
		return false
	}
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// errStopping is the cause given to handler contexts cancelled by a shutdown's grace timeout.
var errStopping = errors.New("delivery: shutting down")
