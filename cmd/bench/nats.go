package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"moviesdiary/internal/adapters/nats"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/sqlstore"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/outbox"
)

// natsPipeline is EVENT_BUS_BACKEND=nats end to end: a producer store (the server's role), and a
// worker with its own store whose relay publishes the outbox to an embedded JetStream server
// (file storage) and whose pump consumes the durable consumer through the engine and ledger.
type natsPipeline struct {
	ns       *server.Server
	prod     *sqlite.Store
	worker   *sqlite.Store
	queue    *sqlstore.Queue
	conn     *nats.Conn
	consumer *nats.Consumer
	relay    *nats.Relay
	pump     *delivery.Pump
	cancel   context.CancelFunc
	done     sync.WaitGroup
}

func newNATSPipeline(ctx context.Context, dir, name string, o options, log *slog.Logger, hs []delivery.Handler) (_ pipeline, err error) {
	p := &natsPipeline{}
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	p.ns, err = server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: filepath.Join(dir, name+"-nats"), NoLog: true, NoSigs: true})
	if err != nil {
		return nil, err
	}
	p.ns.Start()
	if !p.ns.ReadyForConnections(10 * time.Second) {
		return nil, fmt.Errorf("embedded nats-server not ready")
	}
	path := filepath.Join(dir, name+".db")
	if p.prod, err = sqlite.OpenMigrated(ctx, path, log); err != nil {
		return nil, err
	}
	if p.worker, err = sqlite.Open(ctx, path); err != nil {
		return nil, err
	}
	p.queue = p.worker.Queue(outbox.QueueConfig{Logger: log})
	if p.conn, err = nats.Dial(nats.ConnConfig{URL: p.ns.ClientURL(), Logger: log}); err != nil {
		return nil, err
	}
	js, err := jetstream.New(p.conn.NATS())
	if err != nil {
		return nil, err
	}
	const prefix = "bench.events"
	cons, err := nats.Setup(ctx, js, nats.SetupConfig{Stream: "BENCH", Consumer: "worker", Prefix: prefix, MaxDeliver: 5,
		MaxAge: 30 * 24 * time.Hour, Logger: log})
	if err != nil {
		return nil, err
	}
	p.consumer = nats.NewConsumer(p.conn, cons, p.worker.Ledger(), nats.ConsumerConfig{Prefix: prefix, Logger: log})
	if p.relay, err = nats.NewRelay(p.conn, p.queue, nats.RelayConfig{Prefix: prefix, Logger: log}); err != nil {
		return nil, err
	}
	engine, err := delivery.NewEngine(delivery.Config{Logger: log}, p.worker.Ledger(), hs...)
	if err != nil {
		return nil, err
	}
	p.pump = delivery.NewPump(p.consumer, engine, delivery.PumpConfig{BatchSize: o.batch, Concurrency: o.conc, Logger: log})
	return p, nil
}

func (p *natsPipeline) producer() outboxWriter { return p.prod }

func (p *natsPipeline) start(ctx context.Context) {
	ctx, p.cancel = context.WithCancel(ctx)
	// The consumer's notices outlive the pump, which may still settle after ctx ends.
	consCtx, stopCons := context.WithCancel(context.WithoutCancel(ctx))
	p.done.Go(func() { p.consumer.Run(consCtx) })
	p.done.Go(func() { p.relay.Run(ctx) })
	p.done.Go(func() { defer stopCons(); p.pump.Run(ctx) })
}

func (p *natsPipeline) close() {
	if p.cancel != nil {
		p.cancel()
		p.done.Wait()
	}
	if p.conn != nil {
		p.conn.Close()
	}
	if p.queue != nil {
		p.queue.Close()
	}
	for _, s := range []*sqlite.Store{p.worker, p.prod} {
		if s != nil {
			s.Close()
		}
	}
	if p.ns != nil {
		p.ns.Shutdown()
		p.ns.WaitForShutdown()
	}
}
