package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"moviesdiary/internal/adapters/nats"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
)

// natsPipeline is EVENT_BUS_BACKEND=nats end to end: a producer store (the server's role), and a
// worker with its own store whose relay publishes the outbox to an embedded JetStream server
// (file storage) and whose pump consumes the durable consumer through the engine and ledger.
type natsPipeline struct {
	ns       *server.Server
	producer *sqlite.Store
	worker   *sqlite.Store
	queue    *sqlite.Queue
	conn     *nats.Conn
	consumer *nats.Consumer
	relay    *nats.Relay
	pump     *delivery.Pump
	cancel   context.CancelFunc
	done     sync.WaitGroup
}

func newNATSPipeline(ctx context.Context, dir, name string, o options, log *slog.Logger, hs []delivery.Handler) (p *natsPipeline, err error) {
	p = &natsPipeline{}
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	p.ns, err = server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: filepath.Join(dir, name+"-nats"), NoLog: true, NoSigs: true})
	if err != nil {
		return p, err
	}
	p.ns.Start()
	if !p.ns.ReadyForConnections(10 * time.Second) {
		return p, fmt.Errorf("embedded nats-server not ready")
	}
	path := filepath.Join(dir, name+".db")
	if p.producer, err = sqlite.Open(ctx, path); err != nil {
		return p, err
	}
	if err = p.producer.Migrate(ctx, log); err != nil {
		return p, err
	}
	if p.worker, err = sqlite.Open(ctx, path); err != nil {
		return p, err
	}
	p.queue = p.worker.Queue(sqlite.QueueConfig{Logger: log})
	if p.conn, err = nats.Dial(nats.ConnConfig{URL: p.ns.ClientURL(), Logger: log}); err != nil {
		return p, err
	}
	js, err := jetstream.New(p.conn.NATS())
	if err != nil {
		return p, err
	}
	const prefix = "bench.events"
	cons, err := nats.Setup(ctx, js, nats.SetupConfig{Stream: "BENCH", Consumer: "worker", Prefix: prefix, MaxDeliver: 5, Logger: log})
	if err != nil {
		return p, err
	}
	p.consumer = nats.NewConsumer(p.conn, cons, p.worker.Ledger(), nats.ConsumerConfig{Prefix: prefix, Logger: log})
	if p.relay, err = nats.NewRelay(p.conn, p.queue, nats.RelayConfig{Prefix: prefix, Logger: log}); err != nil {
		return p, err
	}
	engine, err := delivery.NewEngine(delivery.Config{Logger: log}, p.worker.Ledger(), hs...)
	if err != nil {
		return p, err
	}
	p.pump = delivery.NewPump(p.consumer, engine, delivery.PumpConfig{BatchSize: o.batch, Concurrency: o.conc, Logger: log})
	return p, nil
}

func (p *natsPipeline) start(ctx context.Context) {
	ctx, p.cancel = context.WithCancel(ctx)
	p.done.Add(2)
	go func() { defer p.done.Done(); p.relay.Run(ctx) }()
	go func() { defer p.done.Done(); p.pump.Run(ctx) }()
}

func (p *natsPipeline) close() {
	if p.cancel != nil {
		p.cancel()
		p.done.Wait()
	}
	if p.consumer != nil {
		p.consumer.Close()
	}
	if p.conn != nil {
		p.conn.Close()
	}
	if p.queue != nil {
		p.queue.Close()
	}
	for _, s := range []*sqlite.Store{p.worker, p.producer} {
		if s != nil {
			s.Close()
		}
	}
	if p.ns != nil {
		p.ns.Shutdown()
		p.ns.WaitForShutdown()
	}
}

// natsBacklog enqueues o.events up front, then times relay and consumer from start until every
// handler ran for every event and every outbox row is done.
func natsBacklog(ctx context.Context, dir string, o options, log *slog.Logger) (row, error) {
	var calls atomic.Int64
	p, err := newNATSPipeline(ctx, dir, "nats-backlog", o, log, noopHandlers(o.handlers, func(int, delivery.Envelope) { calls.Add(1) }))
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
		scenario: fmt.Sprintf("nats: relay+handle %d-event backlog", o.events),
		result: fmt.Sprintf("%.0f events/s  (%s; %.1f µs CPU/event, server included)", float64(o.events)/elapsed.Seconds(),
			elapsed.Round(time.Millisecond), float64(cpu.Microseconds())/float64(o.events)),
	}, nil
}

// natsLatency offers o.rate events/s for o.duration, one committed transaction per event, and
// measures commit → first handler start through relay, JetStream and consumer.
func natsLatency(ctx context.Context, dir string, o options, log *slog.Logger) (row, error) {
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
	p, err := newNATSPipeline(ctx, dir, "nats-latency", o, log, hs)
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
		scenario: fmt.Sprintf("nats: commit→handler at %d events/s", o.rate),
		result:   percentiles(samples),
	}, nil
}
