package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// pipeline is one backend end to end: a producer store (the server's role) writing the outbox,
// and a worker consuming it, on one database as two processes would have.
type pipeline interface {
	producer() outboxWriter
	start(ctx context.Context)
	close()
}

// newPipeline builds a backend's pipeline in dir with handlers hs.
type newPipeline func(ctx context.Context, dir, name string, o options, log *slog.Logger, hs []delivery.Handler) (pipeline, error)

// dbPipeline is EVENT_BUS_BACKEND=db on either SQL store: a producer store and a worker store
// (two pools, as a server and a worker process would have) on one database, the worker's pump
// claiming rows straight from the outbox.
type dbPipeline struct {
	prod   outboxWriter
	pump   *delivery.Pump
	closes []func() error // the queue's, the worker store's, the producer's: in that order
	cancel context.CancelFunc
	done   chan struct{}
}

// newStorePipeline builds the db backend's pipeline from a store's queue and ledger; closes
// release the queue and the stores, in order (also when the engine cannot be built).
func newStorePipeline(prod outboxWriter, q delivery.Source, ledger delivery.Ledger, o options, log *slog.Logger,
	hs []delivery.Handler, closes ...func() error) (pipeline, error) {
	p := &dbPipeline{prod: prod, closes: closes, done: make(chan struct{})}
	engine, err := delivery.NewEngine(delivery.Config{Logger: log}, ledger, hs...)
	if err != nil {
		p.close()
		return nil, err
	}
	p.pump = delivery.NewPump(q, engine, delivery.PumpConfig{BatchSize: o.batch, Concurrency: o.conc, Logger: log})
	return p, nil
}

func newDBPipeline(ctx context.Context, dir, name string, o options, log *slog.Logger, hs []delivery.Handler) (pipeline, error) {
	path := filepath.Join(dir, name+".db")
	prod, err := sqlite.OpenMigrated(ctx, path, log)
	if err != nil {
		return nil, err
	}
	worker, err := sqlite.Open(ctx, path)
	if err != nil {
		prod.Close()
		return nil, err
	}
	q := worker.Queue(outbox.QueueConfig{Logger: log})
	return newStorePipeline(prod, q, worker.Ledger(), o, log, hs, q.Close, worker.Close, prod.Close)
}

func (p *dbPipeline) producer() outboxWriter { return p.prod }

func (p *dbPipeline) start(ctx context.Context) {
	ctx, p.cancel = context.WithCancel(ctx)
	go func() {
		defer close(p.done)
		p.pump.Run(ctx)
	}()
}

func (p *dbPipeline) close() {
	if p.cancel != nil {
		p.cancel()
		<-p.done
	}
	for _, c := range p.closes {
		_ = c()
	}
}

// outboxWriter is what the scenarios need of the producer's store, SQLite's or PostgreSQL's:
// commit events on their own, and count the outbox's rows by status.
type outboxWriter interface {
	Enqueue(ctx context.Context, events ...domain.Event) error
	QueueCounts(ctx context.Context) (map[string]int, error)
}

// benchEvent is the event every scenario writes: an ImageStored whose key starts with a UUID
// (so a handler can tell which event it got) padded to the payload size asked for.
func benchEvent(id uuid.UUID, payload int) domain.Event {
	key := id.String()
	if pad := payload - len(`{"type":"ImageStored","data":{"key":""}}`) - len(key); pad > 1 {
		key += "/" + strings.Repeat("x", pad-1)
	}
	return domain.ImageStored{Key: key}
}

func eventID(e delivery.Envelope) uuid.UUID {
	id, _ := uuid.Parse(e.Event.(domain.ImageStored).Key[:36])
	return id
}

// recorder is the no-op handlers' memory: how many calls, and when each event reached its first
// handler.
type recorder struct {
	calls   atomic.Int64
	mu      sync.Mutex
	started map[uuid.UUID]time.Time
}

func newRecorder() *recorder { return &recorder{started: map[uuid.UUID]time.Time{}} }

// handlers are n no-op handlers for ImageStored; the first notes when each event arrived.
func (r *recorder) handlers(n int, timed bool) []delivery.Handler {
	hs := make([]delivery.Handler, n)
	for i := range hs {
		hs[i] = delivery.Handler{Name: fmt.Sprintf("noop-%d", i), Types: []string{"ImageStored"},
			Handle: func(_ context.Context, e delivery.Envelope) error {
				if i == 0 && timed {
					now := time.Now()
					r.mu.Lock()
					r.started[eventID(e)] = now
					r.mu.Unlock()
				}
				r.calls.Add(1)
				return nil
			}}
	}
	return hs
}

// enqueueBacklog writes n events in transactions of 1,000.
func enqueueBacklog(ctx context.Context, s outboxWriter, n, payload int) error {
	const chunk = 1000
	for written := 0; written < n; written += chunk {
		events := make([]domain.Event, min(chunk, n-written))
		for i := range events {
			events[i] = benchEvent(uuid.New(), payload)
		}
		if err := s.Enqueue(ctx, events...); err != nil {
			return err
		}
	}
	return nil
}

// backlogResult is a drained backlog's figures.
type backlogResult struct {
	rate    float64 // events/s
	elapsed time.Duration
	cpu     time.Duration // this process's CPU time per event
}

// drainBacklog enqueues o.events, then times the pipeline from start until every handler ran
// for every event and every outbox row is done.
func drainBacklog(ctx context.Context, dir, name string, o options, log *slog.Logger, newPipe newPipeline) (backlogResult, error) {
	rec := newRecorder()
	p, err := newPipe(ctx, dir, name, o, log, rec.handlers(o.handlers, false))
	if err != nil {
		return backlogResult{}, err
	}
	defer p.close()
	if err := enqueueBacklog(ctx, p.producer(), o.events, o.payload); err != nil {
		return backlogResult{}, err
	}
	start, cpu0 := time.Now(), cpuTime()
	p.start(ctx)
	want := int64(o.events * o.handlers)
	if err := waitDone(ctx, p.producer(), o.events, 10*time.Minute, func() bool { return rec.calls.Load() >= want }); err != nil {
		return backlogResult{}, err
	}
	elapsed, cpu := time.Since(start), cpuTime()-cpu0
	if got := rec.calls.Load(); got != want {
		return backlogResult{}, fmt.Errorf("%d handler calls, want %d", got, want)
	}
	return backlogResult{rate: float64(o.events) / elapsed.Seconds(), elapsed: elapsed, cpu: cpu / time.Duration(o.events)}, nil
}

// offered is a paced load's figures.
type offered struct {
	handled   float64         // events/s from the first commit to the last event done
	latencies []time.Duration // commit → first handler start
}

// offerLoad commits rate events/s for d, one transaction per event as the server writes them,
// from producers goroutines, and measures commit → first handler start and the handled rate. The
// first second's events (warmUpEvents) run at the same pace uncounted: the pools open their
// connections then (on PostgreSQL each with SCRAM authentication), which made a cold run's
// p99 the warm-up's, not the steady state's. River's bench (bench/peers/river) does the same.
func offerLoad(ctx context.Context, dir, name string, o options, log *slog.Logger, newPipe newPipeline, rate int, d time.Duration, producers int) (offered, error) {
	rec := newRecorder()
	p, err := newPipe(ctx, dir, name, o, log, rec.handlers(o.handlers, true))
	if err != nil {
		return offered{}, err
	}
	defer p.close()
	p.start(ctx)
	warm := warmUpEvents(rate)
	n := warm + max(1, int(d.Seconds()*float64(rate)))
	interval := time.Second / time.Duration(rate)
	committed := make([]struct {
		id uuid.UUID
		at time.Time
	}, n)
	begin := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, producers)
	for range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				if w := time.Until(begin.Add(time.Duration(i) * interval)); w > 0 {
					time.Sleep(w) // paces the offered load
				}
				id := uuid.New()
				if err := p.producer().Enqueue(ctx, benchEvent(id, o.payload)); err != nil {
					errs <- err
					return
				}
				committed[i].id, committed[i].at = id, time.Now()
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return offered{}, err
	}
	want := int64(n * o.handlers)
	if err := waitDone(ctx, p.producer(), n, 2*time.Minute, func() bool { return rec.calls.Load() >= want }); err != nil {
		return offered{}, err
	}
	elapsed := time.Since(begin)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	res := offered{handled: float64(n) / elapsed.Seconds(), latencies: make([]time.Duration, 0, n-warm)}
	for _, c := range committed[warm:] {
		s, ok := rec.started[c.id]
		if !ok {
			return offered{}, fmt.Errorf("event %s never reached its handler", c.id)
		}
		res.latencies = append(res.latencies, max(0, s.Sub(c.at)))
	}
	return res, nil
}

// warmUpEvents is one second's events at rate: offerLoad's uncounted warm-up.
func warmUpEvents(rate int) int { return max(1, rate) }

// waitDone waits until handled says every handler ran (a cheap in-memory check), then until n
// rows are done; counting rows on every poll would load the database under measurement.
func waitDone(ctx context.Context, s outboxWriter, n int, limit time.Duration, handled func() bool) error {
	deadline := time.Now().Add(limit)
	for !handled() {
		if time.Now().After(deadline) {
			return fmt.Errorf("handlers not done after %s", limit)
		}
		time.Sleep(time.Millisecond)
	}
	return waitRowsDone(ctx, s, n, limit, deadline, time.Millisecond)
}

// waitRowsDone counts the queue's rows every until n are done, or deadline (limit after the
// wait began) passes.
func waitRowsDone(ctx context.Context, s outboxWriter, n int, limit time.Duration, deadline time.Time, every time.Duration) error {
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
		time.Sleep(every)
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
