package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
)

// pipeline is a producer store (the server's role) and a worker (its own store, queue and pump)
// on one database file, as two processes would have.
type pipeline struct {
	producer *sqlite.Store
	worker   *sqlite.Store
	queue    *sqlite.Queue
	pump     *delivery.Pump
	done     chan struct{}
}

func newPipeline(ctx context.Context, path string, o options, log *slog.Logger, hs []delivery.Handler) (*pipeline, error) {
	producer, err := sqlite.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	if err := producer.Migrate(ctx, log); err != nil {
		return nil, err
	}
	worker, err := sqlite.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	engine, err := delivery.NewEngine(delivery.Config{Logger: log}, worker.Ledger(), hs...)
	if err != nil {
		return nil, err
	}
	q := worker.Queue(sqlite.QueueConfig{Logger: log})
	return &pipeline{
		producer: producer, worker: worker, queue: q, done: make(chan struct{}),
		pump: delivery.NewPump(q, engine, delivery.PumpConfig{BatchSize: o.batch, Concurrency: o.conc, Logger: log}),
	}, nil
}

func (p *pipeline) start(ctx context.Context) {
	go func() {
		defer close(p.done)
		p.pump.Run(ctx)
	}()
}

func (p *pipeline) close() {
	p.pump.Stop()
	<-p.done
	p.queue.Close()
	p.worker.Close()
	p.producer.Close()
}

// noopHandlers are n handlers for PosterSynced that do nothing but call onCall.
func noopHandlers(n int, onCall func(i int, e delivery.Envelope)) []delivery.Handler {
	hs := make([]delivery.Handler, n)
	for i := range hs {
		hs[i] = delivery.Handler{Name: fmt.Sprintf("noop-%d", i), Types: []string{"PosterSynced"},
			Handle: func(_ context.Context, e delivery.Envelope) error {
				onCall(i, e)
				return nil
			}}
	}
	return hs
}

// dbBacklog enqueues o.events up front, then times the worker from start until every row is
// done: claim, ledger claims, handlers, ledger marks and row done for each event.
func dbBacklog(ctx context.Context, dir string, o options, log *slog.Logger) (row, error) {
	var calls atomic.Int64
	p, err := newPipeline(ctx, filepath.Join(dir, "backlog.db"), o, log, noopHandlers(o.handlers, func(int, delivery.Envelope) { calls.Add(1) }))
	if err != nil {
		return row{}, err
	}
	defer p.close()
	const chunk = 1000
	for written := 0; written < o.events; written += chunk {
		events := make([]domain.Event, min(chunk, o.events-written))
		for i := range events {
			events[i] = domain.PosterSynced{MovieID: uuid.New()}
		}
		if err := p.producer.Enqueue(ctx, events...); err != nil {
			return row{}, err
		}
	}
	start, cpu0 := time.Now(), cpuTime()
	p.start(ctx)
	if err := waitDone(ctx, p.producer, o.events, 5*time.Minute, func() bool { return calls.Load() >= int64(o.events*o.handlers) }); err != nil {
		return row{}, err
	}
	elapsed, cpu := time.Since(start), cpuTime()-cpu0
	if got := calls.Load(); got != int64(o.events*o.handlers) {
		return row{}, fmt.Errorf("%d handler calls, want %d", got, o.events*o.handlers)
	}
	return row{
		scenario: fmt.Sprintf("db: drain %d-event backlog", o.events),
		result: fmt.Sprintf("%.0f events/s  (%s; %.1f µs CPU/event)", float64(o.events)/elapsed.Seconds(),
			elapsed.Round(time.Millisecond), float64(cpu.Microseconds())/float64(o.events)),
	}, nil
}

// dbLatency offers o.rate events/s for o.duration, one committed transaction per event as the
// server writes them, and measures commit → first handler start.
func dbLatency(ctx context.Context, dir string, o options, log *slog.Logger) (row, error) {
	var mu sync.Mutex
	var calls atomic.Int64
	started := map[uuid.UUID]time.Time{}
	hs := noopHandlers(o.handlers, func(i int, e delivery.Envelope) {
		calls.Add(1)
		if i != 0 {
			return
		}
		now := time.Now()
		mu.Lock()
		started[e.Event.(domain.PosterSynced).MovieID] = now
		mu.Unlock()
	})
	p, err := newPipeline(ctx, filepath.Join(dir, "latency.db"), o, log, hs)
	if err != nil {
		return row{}, err
	}
	defer p.close()
	p.start(ctx)
	n := int(o.duration.Seconds() * float64(o.rate))
	committed := make(map[uuid.UUID]time.Time, n)
	interval := time.Second / time.Duration(o.rate)
	begin := time.Now()
	for i := range n {
		if d := time.Until(begin.Add(time.Duration(i) * interval)); d > 0 {
			time.Sleep(d) // paces the offered load
		}
		id := uuid.New()
		if err := p.producer.Enqueue(ctx, domain.PosterSynced{MovieID: id}); err != nil {
			return row{}, err
		}
		committed[id] = time.Now()
	}
	if err := waitDone(ctx, p.producer, n, time.Minute, func() bool { return calls.Load() >= int64(n*o.handlers) }); err != nil {
		return row{}, err
	}
	mu.Lock()
	defer mu.Unlock()
	samples := make([]time.Duration, 0, n)
	for id, c := range committed {
		s, ok := started[id]
		if !ok {
			return row{}, fmt.Errorf("event %s never reached its handler", id)
		}
		samples = append(samples, max(0, s.Sub(c)))
	}
	return row{
		scenario: fmt.Sprintf("db: commit→handler at %d events/s", o.rate),
		result:   percentiles(samples),
	}, nil
}

// waitDone waits until handled says every handler ran (a cheap in-memory check), then until n
// rows are done; counting rows on every poll would load the database under measurement.
func waitDone(ctx context.Context, s *sqlite.Store, n int, limit time.Duration, handled func() bool) error {
	deadline := time.Now().Add(limit)
	for !handled() {
		if time.Now().After(deadline) {
			return fmt.Errorf("handlers not done after %s", limit)
		}
		time.Sleep(time.Millisecond)
	}
	for {
		counts, err := s.QueueCounts(ctx)
		if err != nil {
			return err
		}
		if counts["done"] >= n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("only %v after %s", counts, limit)
		}
		time.Sleep(time.Millisecond)
	}
}

// cpuTime is the CPU time (user + system) this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
