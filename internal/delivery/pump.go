package delivery

import (
	"cmp"
	"context"
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

// PumpConfig tunes a Pump; zero fields take the defaults.
type PumpConfig struct {
	BatchSize   int           // messages per claim (default 100)
	Concurrency int           // jobs run at once (default 16)
	Grace       time.Duration // how long Stop lets running handlers finish (default 20 s)
	Logger      *slog.Logger
}

// Pump claims messages from a Source, runs them through an Engine with bounded concurrency and
// settles results in batches. At most 2×BatchSize messages are claimed and unsettled at a time,
// so a backlog of any size drains in flat memory.
type Pump struct {
	src    Source
	engine *Engine
	cfg    PumpConfig
	log    *slog.Logger

	stopping chan struct{} // closed when Stop begins: claim no more
	done     chan struct{} // closed when Run returns
	stopOnce sync.Once
}

// NewPump builds a Pump; call Run to start it and Stop to end it.
func NewPump(src Source, engine *Engine, cfg PumpConfig) *Pump {
	cfg.BatchSize = cmp.Or(cfg.BatchSize, 100)
	cfg.Concurrency = cmp.Or(cfg.Concurrency, 16)
	cfg.Grace = cmp.Or(cfg.Grace, 20*time.Second)
	return &Pump{
		src: src, engine: engine, cfg: cfg,
		log:      cmp.Or(cfg.Logger, slog.Default()),
		stopping: make(chan struct{}),
		done:     make(chan struct{}),
	}
}

// Run delivers until ctx ends or Stop is called, then drains: running handlers get the grace
// period, jobs not yet started are released back to the source, and every result is settled.
func (p *Pump) Run(ctx context.Context) error {
	defer close(p.done)
	capacity := 2 * p.cfg.BatchSize
	slots := newSlots(capacity) // one per claimed, unsettled message
	jobs := make(chan Job, capacity)
	results := make(chan Result, capacity)

	// handlerCtx outlives ctx by the grace period so in-flight handlers can finish.
	handlerCtx, cancelHandlers := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancelHandlers(nil)
	claimCtx, cancelClaims := context.WithCancel(ctx)
	defer cancelClaims()
	go func() {
		select {
		case <-p.stopping:
		case <-ctx.Done():
			p.stopOnce.Do(func() { close(p.stopping) })
		}
		cancelClaims()
		t := time.NewTimer(p.cfg.Grace)
		defer t.Stop()
		select {
		case <-t.C:
			p.log.Warn("shutdown grace period over: cancelling running handlers", "grace", p.cfg.Grace)
			cancelHandlers(errStopping)
		case <-p.done:
		}
	}()

	var workers sync.WaitGroup
	for range p.cfg.Concurrency {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for j := range jobs {
				if isClosed(p.stopping) {
					results <- p.engine.Release(j)
					continue
				}
				results <- p.engine.Run(handlerCtx, j, p.stopping)
			}
		}()
	}

	settled := make(chan struct{})
	go func() {
		defer close(settled)
		p.settleLoop(results, slots)
	}()

	p.claimLoop(claimCtx, slots, jobs)
	close(jobs)
	workers.Wait()
	close(results)
	<-settled
	return nil
}

// Stopping is closed once the drain begins (Stop was called or Run's context ended).
func (p *Pump) Stopping() <-chan struct{} { return p.stopping }

// Stop ends Run gracefully and waits for it.
func (p *Pump) Stop() {
	p.stopOnce.Do(func() { close(p.stopping) })
	<-p.done
}

func (p *Pump) claimLoop(ctx context.Context, slots *slots, jobs chan<- Job) {
	backoff := 10 * time.Millisecond
	for ctx.Err() == nil {
		// Claim whole batches: wait until a batch's worth of slots is free. With nothing in flight
		// every slot is free, so an idle worker claims at once.
		n := slots.take(ctx, p.cfg.BatchSize)
		if n == 0 {
			return
		}
		msgs, err := p.src.Claim(ctx, n)
		slots.give(n - len(msgs))
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			p.log.Error("claim failed", "error", err, "retry_in", backoff.String())
			sleep(ctx, backoff)
			backoff = min(2*backoff, 5*time.Second)
			continue
		}
		backoff = 10 * time.Millisecond
		if len(msgs) == 0 {
			if err := p.src.Wait(ctx); err != nil && ctx.Err() == nil {
				p.log.Error("waiting for events failed", "error", err)
				sleep(ctx, time.Second)
			}
			continue
		}
		for _, j := range p.engine.Prepare(context.WithoutCancel(ctx), msgs) {
			jobs <- j
		}
	}
}

// settleLoop settles results in batches: whatever has arrived by the time the previous settle
// finished, so a quiet system settles each result at once and a busy one amortises the commit.
func (p *Pump) settleLoop(results <-chan Result, slots *slots) {
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
		p.settle(batch)
		slots.give(len(batch))
	}
}

// settle retries until the results are written: dropping them would leave rows claimed until
// their lease expires and handlers to run again.
func (p *Pump) settle(batch []Result) {
	backoff := 10 * time.Millisecond
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := p.src.Settle(ctx, batch)
		cancel()
		if err == nil {
			return
		}
		if isClosed(p.stopping) && backoff > time.Second {
			p.log.Error("settle failed during shutdown; rows will be reclaimed after their lease", "error", err, "results", len(batch))
			return
		}
		p.log.Error("settle failed", "error", err, "results", len(batch), "retry_in", backoff)
		time.Sleep(backoff)
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
