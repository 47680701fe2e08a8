package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"moviesdiary/internal/adapters/metrics"
	"moviesdiary/internal/adapters/nats"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/config"
	"moviesdiary/internal/delivery"
)

// runNATS is the EVENT_BUS_BACKEND=nats half of run: a relay moves outbox rows to NATS while a
// pump consumes them back through the same engine and ledger as the db backend (a durable
// JetStream pull consumer, or a core queue-group subscription with NATS_MODE=core). It returns
// once ctx ends and both have drained.
func runNATS(ctx context.Context, cfg config.Config, log *slog.Logger, store *sqlite.Store, engine *delivery.Engine,
	outbox *sqlite.Queue, obs *metrics.Worker, handlers []string) error {
	conn, err := nats.Dial(nats.ConnConfig{URL: cfg.NATSURL, Logger: log, OnReconnect: obs.Reconnected})
	if err != nil {
		return err
	}
	defer conn.Close()

	var src interface {
		delivery.Source
		Run(ctx context.Context) error // the source's own background work, ended after the pump
	}
	switch nats.Mode(cfg.NATSMode) {
	case nats.JetStream:
		js, err := jetstream.New(conn.NATS())
		if err != nil {
			return fmt.Errorf("jetstream: %w", err)
		}
		cons, err := setupStream(ctx, js, cfg, log)
		if err != nil {
			return err
		}
		src = nats.NewConsumer(conn, cons, store.Ledger(), nats.ConsumerConfig{Prefix: cfg.NATSSubjectPrefix, Logger: log,
			OnRedelivery: obs.Redelivered})
	case nats.Core:
		consumer, err := nats.SubscribeCore(conn, store.Ledger(), nats.CoreConfig{Prefix: cfg.NATSSubjectPrefix,
			Group: cfg.NATSConsumerName, MaxAttempts: cfg.MaxAttempts, Logger: log})
		if err != nil {
			return err
		}
		src = consumer
	default:
		return fmt.Errorf("NATS_MODE: %q is not a mode (jetstream or core)", cfg.NATSMode)
	}

	relay, err := nats.NewRelay(conn, outbox, nats.RelayConfig{Prefix: cfg.NATSSubjectPrefix,
		Mode: nats.Mode(cfg.NATSMode), BackoffBase: cfg.BackoffBase, Logger: log})
	if err != nil {
		return err
	}
	pump := delivery.NewPump(src, engine, delivery.PumpConfig{
		BatchSize:   cfg.BatchSize,
		Concurrency: cfg.Concurrency,
		Grace:       cfg.ShutdownGrace,
		Logger:      log,
	})

	log.Info("worker started", "backend", cfg.EventBusBackend, "handlers", handlers, "nats_mode", cfg.NATSMode, "nats_url", conn.NATS().ConnectedUrlRedacted(),
		"subject_prefix", cfg.NATSSubjectPrefix, "stream", cfg.NATSStreamName, "consumer", cfg.NATSConsumerName,
		"database", store.Path(), "batch_size", cfg.BatchSize, "concurrency", cfg.Concurrency, "max_attempts", cfg.MaxAttempts)
	// The source's notices and subscription outlive the pump, which may still settle after ctx
	// ends; a part that fails stops the others.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srcCtx, stopSrc := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	var srcErr, relayErr error
	wg.Go(func() { defer cancel(); srcErr = src.Run(srcCtx) })
	wg.Go(func() { defer cancel(); relayErr = relay.Run(ctx) })
	err = pump.Run(ctx)
	cancel()
	stopSrc()
	wg.Wait()
	log.Info("worker stopped")
	return errors.Join(err, relayErr, srcErr)
}

// setupStream creates or reconciles the stream and the durable consumer, retrying while NATS is
// unreachable (the worker may start before it).
func setupStream(ctx context.Context, js jetstream.JetStream, cfg config.Config, log *slog.Logger) (jetstream.Consumer, error) {
	backoff := time.Second
	for {
		cons, err := nats.Setup(ctx, js, nats.SetupConfig{Stream: cfg.NATSStreamName, Consumer: cfg.NATSConsumerName,
			Prefix: cfg.NATSSubjectPrefix, MaxDeliver: cfg.MaxAttempts, AckWait: cfg.NATSAckWait,
			MaxAge: 30 * 24 * time.Hour, Logger: log}) // the ledger's 30-day retention
		if err == nil {
			return cons, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("jetstream setup: %w", err)
		}
		log.Warn("jetstream setup failed; retrying", "error", err, "retry_in", backoff.String())
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("jetstream setup: %w", err)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 30*time.Second)
	}
}
