package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"moviesdiary/internal/adapters/metrics"
	"moviesdiary/internal/adapters/nats"
	"moviesdiary/internal/buildinfo"
	"moviesdiary/internal/config"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/maintenance"
)

// runNATS is the EVENT_BUS_BACKEND=nats half of run: a relay moves outbox rows to NATS while a
// pump consumes them back through the same engine and ledger as the db backend, recording each
// event's outcome in its outbox row (a durable
// JetStream pull consumer, or a core queue-group subscription with NATS_MODE=core). It returns
// once w.serve has joined every part; ctx is the worker's.
func runNATS(ctx context.Context, cfg config.Config, log *slog.Logger, store *database, w *worker,
	outbox queue, obs *metrics.Worker, handlers []string) error {
	conn, err := nats.Dial(nats.ConnConfig{URL: cfg.NATSURL, Logger: log, OnReconnect: obs.Reconnected})
	if err != nil {
		return err
	}
	defer conn.Close()

	// The horizon after which a relayed event with no recorded outcome is published again.
	horizon := nats.Horizon(cfg.MaxAttempts, cfg.NATSAckWait, cfg.BackoffBase)
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
		src = nats.NewConsumer(conn, cons, store.ledger, nats.ConsumerConfig{Prefix: cfg.NATSSubjectPrefix, Logger: log,
			Now: w.now, Horizon: horizon, OnRedelivery: obs.Redelivered, OnDeadLetter: obs.DeadLettered})
	case nats.Core:
		consumer, err := nats.SubscribeCore(conn, store.ledger, nats.CoreConfig{Prefix: cfg.NATSSubjectPrefix,
			Group: cfg.NATSConsumerName, MaxAttempts: cfg.MaxAttempts, Horizon: horizon, Logger: log, Now: w.now,
			OnDeadLetter: obs.DeadLettered})
		if err != nil {
			return err
		}
		src = consumer
	default:
		return fmt.Errorf("NATS_MODE: %q is not a mode (jetstream or core)", cfg.NATSMode)
	}

	relay, err := nats.NewRelay(conn, outbox, nats.RelayConfig{Prefix: cfg.NATSSubjectPrefix,
		Mode: nats.Mode(cfg.NATSMode), BackoffBase: cfg.BackoffBase, Horizon: horizon, OnDeadLetter: obs.DeadLettered,
		Logger: log, Now: w.now, Paused: obs.RelayPaused})
	if err != nil {
		return err
	}
	log.Info("worker started", "version", buildinfo.Version(), "backend", cfg.EventBusBackend, "handlers", handlers, "nats_mode", cfg.NATSMode, "nats_url", conn.NATS().ConnectedUrlRedacted(),
		"subject_prefix", cfg.NATSSubjectPrefix, "stream", cfg.NATSStreamName, "consumer", cfg.NATSConsumerName,
		"rerelay_horizon", horizon.String(),
		"database", store.where, "batch_size", cfg.BatchSize, "concurrency", cfg.Concurrency, "max_attempts", cfg.MaxAttempts)
	// The source's in-progress notices and subscription run until the pump has drained: the
	// messages it still settles after ctx ends need them.
	return w.serve(src, []part{relay.Run}, []part{src.Run})
}

// setupStream creates or reconciles the stream and the durable consumer, retrying while NATS is
// unreachable (the worker may start before it).
func setupStream(ctx context.Context, js jetstream.JetStream, cfg config.Config, log *slog.Logger) (jetstream.Consumer, error) {
	pause := domain.Pause{Min: time.Second, Max: 30 * time.Second}
	for {
		cons, err := nats.Setup(ctx, js, nats.SetupConfig{Stream: cfg.NATSStreamName, Consumer: cfg.NATSConsumerName,
			Prefix: cfg.NATSSubjectPrefix, MaxDeliver: cfg.MaxAttempts, AckWait: cfg.NATSAckWait, Replicas: cfg.NATSStreamReplicas,
			MaxAge: maintenance.LedgerRetention, Logger: log})
		if err == nil {
			return cons, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("jetstream setup: %w", err)
		}
		backoff := pause.Next()
		log.Warn("jetstream setup failed; retrying", "error", err, "retry_in", backoff.String())
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("jetstream setup: %w", err)
		case <-time.After(backoff):
		}
	}
}
