package delivery

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// Source supplies claimed messages and applies delivery results.
type Source interface {
	// Claim returns up to max messages now owned by this process (possibly none).
	Claim(ctx context.Context, max int) ([]Message, error)
	// Settle writes the results' ledger marks and applies their outcomes.
	Settle(ctx context.Context, results []Result) error
	// Wait blocks until new messages may be claimable, or ctx ends.
	Wait(ctx context.Context) error
}

// Extender is a Source whose claims expire unless renewed (the SQLite queue's claim lease). A
// pump over one calls Extend every ExtendEvery while it runs, draining included, so every message
// it holds — queued behind busy handlers or running — keeps its claim: only a dead or stalled
// worker's claims expire, whatever the batch size, the concurrency or the handlers' durations.
type Extender interface {
	ExtendEvery() time.Duration
	Extend(ctx context.Context) error
}

// ErrClosed marks an error of a Source or a Dispatcher that can never deliver again (its
// connection was closed for good). The Pump then stops as on a shutdown and Run returns the
// error; any other error is retried.
var ErrClosed = errors.New("delivery: closed")

// Dispatcher delivers claimed batches somewhere other than an Engine's handlers: a relay
// publishes them to a broker. NewPumpTo runs one.
type Dispatcher interface {
	// Ready reports how long to wait before the next claim, zero to claim now. It may block on
	// its own while it cannot take work (a relay waits here for its connection). An error
	// wrapping ErrClosed stops the pump.
	Ready(ctx context.Context) (time.Duration, error)
	// Dispatch delivers one claimed batch and returns one Result per message. ctx ends when the
	// pump's grace period after a shutdown runs out.
	Dispatch(ctx context.Context, msgs []Message) []Result
}

// PumpConfig tunes a Pump; zero fields take the defaults.
type PumpConfig struct {
	BatchSize   int           // messages per claim (default 100)
	Concurrency int           // handler jobs run at once (default 16); a Dispatcher runs one batch at a time
	Grace       time.Duration // how long a shutdown lets running handlers finish (default 20 s)
	Logger      *slog.Logger
}

// Pump is the one claim → dispatch → settle loop of every delivery path. It claims batches
// from a Source, backing off while claims fail and waiting while there is nothing to claim,
// dispatches them, and settles the results, retrying until they are written.
//
// NewPump dispatches to an Engine's handlers with bounded concurrency and settles results in
// batches; at most 2×BatchSize messages are claimed and unsettled at a time, so a backlog of any
// size drains in flat memory. NewPumpTo dispatches to a Dispatcher one batch at a time and
// settles each batch before it claims the next.
type Pump struct {
	src    Source
	engine *Engine    // NewPump
	to     Dispatcher // NewPumpTo
	cfg    PumpConfig
	log    *slog.Logger
}

// NewPump builds a Pump that runs claimed messages through engine's handlers.
func NewPump(src Source, engine *Engine, cfg PumpConfig) *Pump {
	return newPump(src, engine, nil, cfg)
}

// NewPumpTo builds a Pump that hands claimed batches to d.
func NewPumpTo(src Source, d Dispatcher, cfg PumpConfig) *Pump {
	return newPump(src, nil, d, cfg)
}

func newPump(src Source, engine *Engine, to Dispatcher, cfg PumpConfig) *Pump {
	cfg.BatchSize = cmp.Or(cfg.BatchSize, 100)
	cfg.Concurrency = cmp.Or(cfg.Concurrency, 16)
	cfg.Grace = cmp.Or(cfg.Grace, 20*time.Second)
	return &Pump{src: src, engine: engine, to: to, cfg: cfg, log: cmp.Or(cfg.Logger, slog.Default())}
}

// Run delivers until ctx ends, then drains: running handlers get the grace period, jobs not yet
// started are released back to the source, and every result is settled. It returns once all of
// that is done and every goroutine it started has ended: nil after ctx ended, the error after a
// Source or Dispatcher error wrapping ErrClosed (drained the same way).
func (p *Pump) Run(ctx context.Context) error {
	// stop ends the claims on a fatal error as ctx's end does; ctx.Done() is the drain signal.
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	// handlerCtx outlives ctx by the grace period so in-flight work can finish.
	handlerCtx, cancelHandlers := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancelHandlers(nil)
	drained := make(chan struct{})
	var grace sync.WaitGroup
	grace.Go(func() {
		select {
		case <-ctx.Done():
		case <-drained:
			return
		}
		t := time.NewTimer(p.cfg.Grace)
		defer t.Stop()
		select {
		case <-t.C:
			p.log.Warn("shutdown grace period over: cancelling running handlers", "grace", p.cfg.Grace)
			cancelHandlers(errStopping)
		case <-drained:
		}
	})
	if x, ok := p.src.(Extender); ok && x.ExtendEvery() > 0 {
		grace.Go(func() { p.extend(x, drained) })
	}
	defer grace.Wait()
	defer close(drained)

	if p.engine != nil {
		return p.runEngine(ctx, handlerCtx, stop)
	}
	return p.runDispatcher(ctx, handlerCtx, stop)
}

// extend renews the source's claims every ExtendEvery until drained is closed.
func (p *Pump) extend(x Extender, drained <-chan struct{}) {
	t := time.NewTicker(x.ExtendEvery())
	defer t.Stop()
	for {
		select {
		case <-drained:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), x.ExtendEvery())
		if err := x.Extend(ctx); err != nil {
			p.log.Warn("extending claims failed; retrying at the next tick", "error", err)
		}
		cancel()
	}
}

// runEngine claims into a queue of jobs that Concurrency workers run, and settles their results
// from one goroutine.
func (p *Pump) runEngine(ctx, handlerCtx context.Context, stop context.CancelCauseFunc) error {
	capacity := 2 * p.cfg.BatchSize
	slots := newSlots(capacity) // one per claimed, unsettled message
	jobs := make(chan Job, capacity)
	results := make(chan Result, capacity)
	stopping := ctx.Done()

	var workers sync.WaitGroup
	for range p.cfg.Concurrency {
		workers.Go(func() {
			for j := range jobs {
				if isClosed(stopping) {
					results <- p.engine.Release(j)
					continue
				}
				results <- p.engine.Run(handlerCtx, j, stopping)
			}
		})
	}
	var settler sync.WaitGroup
	settler.Go(func() { p.settleLoop(stopping, results, slots) })

	// The ledger claims of a batch are taken off the claim loop, so the next claim's round
	// trips overlap them instead of waiting (issue 34: at 1,000 events/s the loop's claims
	// and ledger claims, one after the other, were most of the time from a commit to its
	// handler). The slots bound the batches in flight to two, so the buffer never fills.
	batches := make(chan []Message, 2)
	var preparer sync.WaitGroup
	preparer.Go(func() {
		for msgs := range batches {
			for _, j := range p.engine.Prepare(context.WithoutCancel(ctx), msgs) {
				jobs <- j
			}
		}
	})
	err := p.claimLoop(ctx, slots, func(msgs []Message) { batches <- msgs })
	stop(err) // a fatal error drains like a shutdown: unstarted jobs are released
	close(batches)
	preparer.Wait()
	close(jobs)
	workers.Wait()
	close(results)
	settler.Wait()
	return err
}

// runDispatcher hands each claimed batch to the Dispatcher and settles its results before the
// next claim, so at most BatchSize messages are out at a time.
func (p *Pump) runDispatcher(ctx, handlerCtx context.Context, stop context.CancelCauseFunc) error {
	slots := newSlots(p.cfg.BatchSize)
	err := p.claimLoop(ctx, slots, func(msgs []Message) {
		p.settle(ctx.Done(), p.to.Dispatch(handlerCtx, msgs))
		slots.give(len(msgs))
	})
	stop(err)
	return err
}

// claimLoop claims batches and hands them to dispatch until ctx ends or a fatal error.
func (p *Pump) claimLoop(ctx context.Context, slots *slots, dispatch func([]Message)) error {
	fail := func(msg string, err error, pause *Backoff) error {
		if errors.Is(err, ErrClosed) {
			p.log.Error(msg+"; stopping", "error", err)
			return err
		}
		d := pause.Next()
		p.log.Error(msg, "error", err, "retry_in", d.String())
		sleep(ctx, d)
		return nil
	}
	var pause Backoff
	for ctx.Err() == nil {
		// Claim whole batches: wait until a batch's worth of slots is free. With nothing in flight
		// every slot is free, so an idle worker claims at once.
		n := slots.take(ctx, p.cfg.BatchSize)
		if n == 0 {
			return nil
		}
		if p.to != nil {
			wait, err := p.to.Ready(ctx)
			if err != nil || wait > 0 || ctx.Err() != nil {
				slots.give(n)
				if err != nil {
					if err := fail("dispatcher not ready", err, &pause); err != nil {
						return err
					}
					continue
				}
				sleep(ctx, wait)
				continue
			}
		}
		msgs, err := p.src.Claim(ctx, n)
		slots.give(n - len(msgs))
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if err := fail("claim failed", err, &pause); err != nil {
				return err
			}
			continue
		}
		if len(msgs) == 0 {
			err := p.src.Wait(ctx)
			if err == nil {
				pause.Reset()
			} else if ctx.Err() == nil {
				if err := fail("waiting for events failed", err, &pause); err != nil {
					return err
				}
			}
			continue
		}
		pause.Reset()
		dispatch(msgs)
	}
	return nil
}

// settleLoop settles results in batches: whatever has arrived by the time the previous settle
// finished, so a quiet system settles each result at once and a busy one amortises the commit.
func (p *Pump) settleLoop(stopping <-chan struct{}, results <-chan Result, slots *slots) {
	batch := make([]Result, 0, p.cfg.BatchSize)
	for r := range results {
		batch = append(batch[:0], r)
	more:
		for len(batch) < cap(batch) {
			select {
			case r, ok := <-results:
				if !ok {
					break more
				}
				batch = append(batch, r)
			default:
				break more
			}
		}
		p.settle(stopping, batch)
		slots.give(len(batch))
	}
}

// settle retries until the results are written: dropping them would leave rows claimed until
// their lease expires and handlers to run again. Once stopping is closed it gives up when the
// pause between tries passes a second.
func (p *Pump) settle(stopping <-chan struct{}, batch []Result) {
	var pause Backoff
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := p.src.Settle(ctx, batch)
		cancel()
		if err == nil {
			return
		}
		d := pause.Next()
		if isClosed(stopping) && d > time.Second {
			p.log.Error("settle failed during shutdown; rows will be reclaimed after their lease", "error", err, "results", len(batch))
			return
		}
		p.log.Error("settle failed", "error", err, "results", len(batch), "retry_in", d.String())
		sleep(context.Background(), d)
	}
}

// slots counts the messages a pump may still claim.
type slots struct {
	mu      sync.Mutex
	free    int
	changed chan struct{}
}

func newSlots(n int) *slots { return &slots{free: n, changed: make(chan struct{}, 1)} }

// take waits until n slots are free, takes them and returns n; 0 when ctx ends first.
func (s *slots) take(ctx context.Context, n int) int {
	for {
		s.mu.Lock()
		if s.free >= n {
			s.free -= n
			s.mu.Unlock()
			return n
		}
		s.mu.Unlock()
		select {
		case <-s.changed:
		case <-ctx.Done():
			return 0
		}
	}
}

func (s *slots) give(n int) {
	if n == 0 {
		return
	}
	s.mu.Lock()
	s.free += n
	s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
}
