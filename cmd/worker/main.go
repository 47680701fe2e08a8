// Command worker delivers the outbox's events to the handlers: straight from the event_queue
// table (EVENT_BUS_BACKEND=db). It migrates the database at start-up and stops gracefully on
// SIGTERM or SIGINT. `worker events …` is the operators' tool for the outbox (stats, list, show,
// retry, purge).
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"moviesdiary/internal/adapters/metrics"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/config"
	"moviesdiary/internal/delivery"
)

// ledgerRetention is how long processed_events rows are kept (the decision record's 30 days).
const ledgerRetention = 30 * 24 * time.Hour

func main() {
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker: config:", err)
		os.Exit(2)
	}
	log := cfg.NewLogger(os.Stderr)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if len(os.Args) > 1 && os.Args[1] == "events" {
		code := eventsCommand(ctx, cfg, os.Args[2:], os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	if len(os.Args) > 1 {
		fmt.Fprintf(os.Stderr, "worker: unknown command %q\n\n%s\n", os.Args[1], eventsUsage)
		os.Exit(2)
	}
	if err := run(ctx, cfg, log); err != nil {
		log.Error("worker stopped with an error", "error", err)
		os.Exit(1)
	}
}

// run wires the worker and delivers until ctx ends. extra handlers are added to the production
// set (tests record deliveries with them).
func run(ctx context.Context, cfg config.Config, log *slog.Logger, extra ...delivery.Handler) error {
	path, err := cfg.DatabasePath()
	if err != nil {
		return err
	}
	store, err := sqlite.OpenMigrated(ctx, path, log)
	if err != nil {
		return err
	}
	defer store.Close()

	obs := metrics.NewWorker(store, log)
	if err := serveMetrics(ctx, cfg.WorkerMetricsAddr, obs.Handler(), log); err != nil {
		return err
	}

	handlers, err := productionHandlers(ctx, cfg, store, log)
	if err != nil {
		return err
	}
	handlers = append(handlers, extra...)
	var ledger delivery.Ledger = store.Ledger()
	if cfg.ChaosRecord {
		var closeRec func()
		if handlers, closeRec, err = chaosRecording(ctx, path, handlers); err != nil {
			return err
		}
		defer closeRec()
		log.Warn("chaos mode: every handler execution is recorded (CHAOS_RECORD=1); not for production")
		if cfg.ChaosBreakLedger {
			ledger = brokenLedger{}
			log.Warn("chaos mode: the ledger is disabled (CHAOS_BREAK_LEDGER=1): handlers may run twice")
		}
	}
	engine, err := delivery.NewEngine(delivery.Config{
		LedgerLease: cfg.LedgerLease,
		BackoffBase: cfg.BackoffBase,
		Logger:      log,
		Observer:    obs,
	}, ledger, handlers...)
	if err != nil {
		return err
	}
	queue := store.Queue(sqlite.QueueConfig{MaxAttempts: cfg.MaxAttempts, ClaimLease: cfg.ClaimLease, Logger: log})
	defer queue.Close()

	names := make([]string, len(handlers))
	for i, h := range handlers {
		names[i] = h.Name
	}
	obs.Handlers(names...)
	if cfg.EventBusBackend == "nats" {
		return runNATS(ctx, cfg, log, store, engine, queue, obs, names)
	}
	pump := delivery.NewPump(queue, engine, delivery.PumpConfig{
		BatchSize:   cfg.BatchSize,
		Concurrency: cfg.Concurrency,
		Grace:       cfg.ShutdownGrace,
		Logger:      log,
	})
	log.Info("worker started", "backend", cfg.EventBusBackend, "database", path, "handlers", names,
		"batch_size", cfg.BatchSize, "concurrency", cfg.Concurrency, "max_attempts", cfg.MaxAttempts)
	err = pump.Run(ctx)
	log.Info("worker stopped")
	return err
}
