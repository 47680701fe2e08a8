package main

import (
	"context"
	"log/slog"
	"time"

	"golang.org/x/sync/errgroup"

	"moviesdiary/internal/config"
	"moviesdiary/internal/delivery"
)

// part is one long-lived part of the worker: it returns only once it has stopped, nil when its
// context ended, an error when it failed.
type part func(ctx context.Context) error

// worker is the worker's one lifecycle: every long-lived part (the metrics server, the
// maintenance jobs, the pump, the NATS relay, the JetStream in-progress notices) is started in
// its errgroup and joined by stop. A part that fails cancels ctx, so the others stop, and its
// error is what run returns. Nothing started here outlives stop, so run's deferred closes (the
// store, the queue, the NATS connection) come after every goroutine has ended.
type worker struct {
	cfg    config.Config
	log    *slog.Logger
	now    func() time.Time
	engine *delivery.Engine

	g      *errgroup.Group
	ctx    context.Context // the group's: ends with the caller's, when a part fails, or at stop
	cancel context.CancelFunc
}

// startWorker starts parts at once, before the event source is ready (a NATS set-up may wait for
// the server, and metrics and maintenance run meanwhile).
func startWorker(ctx context.Context, cfg config.Config, log *slog.Logger, now func() time.Time,
	engine *delivery.Engine, parts ...part) *worker {
	ctx, cancel := context.WithCancel(ctx)
	w := &worker{cfg: cfg, log: log, now: now, engine: engine, cancel: cancel}
	w.g, w.ctx = errgroup.WithContext(ctx)
	for _, p := range parts {
		w.g.Go(func() error { return p(w.ctx) })
	}
	return w
}

// serve delivers from src through a pump, with the backend's parts beside it (the NATS relay),
// until the worker's context ends or a part fails, and returns once every part has stopped. The
// drain parts (the JetStream consumer's in-progress notices) keep running until the pump has
// drained, since the messages it still settles need them.
func (w *worker) serve(src delivery.Source, beside, drain []part) error {
	pump := delivery.NewPump(src, w.engine, delivery.PumpConfig{
		BatchSize:   w.cfg.BatchSize,
		Concurrency: w.cfg.Concurrency,
		Grace:       w.cfg.ShutdownGrace,
		Logger:      w.log,
	})
	drained, stopDrain := context.WithCancel(context.WithoutCancel(w.ctx))
	defer stopDrain()
	w.g.Go(func() error {
		defer stopDrain()
		return pump.Run(w.ctx)
	})
	for _, p := range beside {
		w.g.Go(func() error { return p(w.ctx) })
	}
	for _, p := range drain {
		w.g.Go(func() error { return p(drained) })
	}
	return w.g.Wait()
}

// stop cancels every part and joins them. It returns the first part's error, else err (why
// the caller stopped: a failed start-up, or serve's result).
func (w *worker) stop(err error) error {
	w.cancel()
	if gerr := w.g.Wait(); gerr != nil {
		err = gerr
	}
	w.log.Info("worker stopped")
	return err
}
