package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"moviesdiary/internal/adapters/postgres"
)

// pgWorkersRounds is how many times pg-workers drains with one worker and with two, alternating.
const pgWorkersRounds = 2

// pgWorkers measures what a second worker adds on PostgreSQL: the same backlog drained by one
// worker child and by two at once (each `bench worker-child -shared`), alternately, returning
// each drain's events/s, one and two workers in turn.
func pgWorkers(ctx context.Context, o options, log *slog.Logger) (one, two []float64, err error) {
	for round := range pgWorkersRounds {
		for _, n := range []int{1, 2} {
			rate, err := pgDrainWith(ctx, o, log, fmt.Sprintf("workers-%d-%d", n, round), n)
			if err != nil {
				return nil, nil, fmt.Errorf("%d workers: %w", n, err)
			}
			if n == 1 {
				one = append(one, rate)
			} else {
				two = append(two, rate)
			}
		}
	}
	return one, two, nil
}

// pgDrainWith writes the backlog into a fresh database and drains it with workers children at
// once, returning events/s from their start until the last one saw every row done.
func pgDrainWith(ctx context.Context, o options, log *slog.Logger, name string, workers int) (float64, error) {
	o.pgCommit = figureCommit
	if len(o.pgCommits) > 0 {
		o.pgCommit = o.pgCommits[0]
	}
	url, err := pgDatabase(ctx, o, name)
	if err != nil {
		return 0, err
	}
	s, err := postgres.OpenMigrated(ctx, url, log)
	if err != nil {
		return 0, err
	}
	err = enqueueBacklog(ctx, s, o.events, o.payload)
	s.Close()
	if err != nil {
		return 0, err
	}
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for i := range workers {
		wg.Go(func() {
			cmd := exec.CommandContext(ctx, self, "worker-child", "-shared", "-db", url, "-events", strconv.Itoa(o.events),
				"-handlers", strconv.Itoa(o.handlers), "-batch", strconv.Itoa(o.batch), "-concurrency", strconv.Itoa(o.conc))
			cmd.Stderr = os.Stderr
			if out, err := cmd.Output(); err != nil {
				errs[i] = fmt.Errorf("worker child: %w (%s)", err, out)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	return float64(o.events) / elapsed.Seconds(), nil
}
