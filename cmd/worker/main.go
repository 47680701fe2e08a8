// Command worker delivers the outbox's events to the handlers: straight from the event_queue
// table (EVENT_BUS_BACKEND=db) or relayed through NATS (EVENT_BUS_BACKEND=nats). It migrates the
// database at start-up and stops gracefully on SIGTERM or SIGINT. `worker events …` is the
// operators' tool for the outbox (stats, list, show, retry, discard, purge); `worker movies …` their
// tool for the catalogue (unresolved movies, duplicates, merges).
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
	"moviesdiary/internal/buildinfo"
	"moviesdiary/internal/config"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/httpserve"
)

const usage = `usage: worker [command]

Without a command the worker delivers the outbox's events (configured by the environment; see the README).

commands:
  events ...       inspect and repair the outbox (stats, list, show, retry, discard, purge); "worker events help"
  federation ...   the delivery lane's remote servers (hosts, retry-now, forget); "worker federation help"
  movies ...       one film, one movie: list unresolved movies and possible duplicates, merge or
                   resolve movies by hand; "worker movies help"
  config           print the effective settings, secrets masked (also --print-config); touches nothing
  version          print the version (also --version)
  help             this text (also -h, --help)`

func main() {
	// The arguments are read before the environment, so --version, --help and a mistake touch
	// nothing (no database is created or migrated).
	args := os.Args[1:]
	if len(args) > 0 {
		switch args[0] {
		case "-h", "-help", "--help", "help":
			fmt.Println(usage)
			os.Exit(0)
		case "-version", "--version", "version":
			if len(args) > 1 {
				fmt.Fprintf(os.Stderr, "worker: version takes no arguments\n\n%s\n", usage)
				os.Exit(2)
			}
			fmt.Println(buildinfo.String("worker"))
			os.Exit(0)
		case "events", "federation", "movies":
		case "config", "--print-config", "-print-config":
			if len(args) > 1 {
				fmt.Fprintf(os.Stderr, "worker: config takes no arguments\n\n%s\n", usage)
				os.Exit(2)
			}
		default:
			fmt.Fprintf(os.Stderr, "worker: unknown command or flag %q\n\n%s\n", args[0], usage)
			os.Exit(2)
		}
	}
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker: config:", err)
		os.Exit(2)
	}
	log := cfg.NewLogger(os.Stderr).With("service", "worker")
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	config.WarnSuspects(ctx, log, os.Environ())
	if len(args) > 0 && (args[0] == "config" || args[0] == "--print-config" || args[0] == "-print-config") {
		if err := cfg.Print(os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "worker config:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if len(args) > 0 { // events, federation, movies
		var code int
		switch args[0] {
		case "federation":
			code = federationCommand(ctx, cfg, args[1:], time.Now, os.Stdout, os.Stderr)
		case "movies":
			code = moviesCommand(ctx, cfg, args[1:], os.Stdout, os.Stderr)
		default:
			code = eventsCommand(ctx, cfg, args[1:], os.Stdout, os.Stderr)
		}
		stop()
		os.Exit(code)
	}
	// The process's one clock: every part that reads the time gets it from here.
	if err := run(ctx, cfg, log, time.Now); err != nil {
		log.Error("worker stopped with an error", "error", err)
		os.Exit(1)
	}
}

// run wires the worker and delivers until ctx ends or a part fails; it returns once every part
// has stopped, with the first part's error. now is the clock of every part; extra handlers are
// added to the production set (tests record deliveries with them).
func run(ctx context.Context, cfg config.Config, log *slog.Logger, now func() time.Time, extra ...delivery.Handler) error {
	if err := checkLeases(cfg); err != nil {
		return err
	}
	store, err := openDatabase(ctx, cfg, log, now)
	if err != nil {
		return err
	}
	defer store.Close()

	obs := metrics.NewWorker(store, log)
	handlers, parts, err := productionHandlers(ctx, cfg, store, log, now, obs.Register)
	if err != nil {
		return err
	}
	handlers = append(handlers, extra...)
	var ledger delivery.Ledger = store.ledger
	if cfg.ChaosRecord {
		var closeRec func()
		if handlers, closeRec, err = chaosRecording(ctx, store.chaosDriver, store.chaosDSN, now, handlers); err != nil {
			return err
		}
		defer closeRec()
		log.Warn("chaos mode: every handler execution is recorded (CHAOS_RECORD=1); not for production")
		if cfg.BackoffBase != domain.BackoffBase {
			log.Warn("chaos mode: the retry schedule is scaled (EVENT_QUEUE_BACKOFF_BASE)", "base", cfg.BackoffBase.String())
		}
		if cfg.ChaosBreakLedger {
			ledger = brokenLedger{}
			log.Warn("chaos mode: the ledger is disabled (CHAOS_BREAK_LEDGER=1): handlers may run twice")
		}
	}
	engine, err := delivery.NewEngine(delivery.Config{
		LedgerLease: cfg.LedgerLease,
		BackoffBase: cfg.BackoffBase,
		MaxAttempts: cfg.MaxAttempts,
		Logger:      log,
		Now:         now,
		Observer:    obs,
	}, ledger, handlers...)
	if err != nil {
		return err
	}
	queue := store.queue(queueConfig{MaxAttempts: cfg.MaxAttempts, ClaimLease: cfg.ClaimLease, Logger: log,
		OnDeadLetter: obs.DeadLettered})
	defer queue.Close()

	names := make([]string, len(handlers))
	for i, h := range handlers {
		names[i] = h.Name
	}
	obs.Handlers(names...)
	// From here every long-lived part runs in w's group; w.stop joins them all before the
	// deferred closes above run.
	w := startWorker(ctx, cfg, log, now, engine,
		append([]part{
			httpserve.Metrics{Addr: cfg.WorkerMetricsAddr, Env: "WORKER_METRICS_ADDR", Handler: obs.Handler(), Log: log}.Run,
			newMaintenance(cfg, store, store.ledger, log, now).Run,
		}, parts...)...,
	)
	if cfg.EventBusBackend == "nats" {
		err = runNATS(w.ctx, cfg, log, store, w, queue, obs, names)
	} else {
		log.Info("worker started", "version", buildinfo.Version(), "backend", cfg.EventBusBackend, "database", store.where, "handlers", names,
			"batch_size", cfg.BatchSize, "concurrency", cfg.Concurrency, "max_attempts", cfg.MaxAttempts)
		err = w.serve(queue, nil, nil)
	}
	return w.stop(err)
}
