package main

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"moviesdiary/internal/adapters/sqlite"
)

// binaryResult is what the worker binary did with a backlog.
type binaryResult struct {
	elapsed time.Duration // from its start until every row was done
	peakRSS int64         // KiB (VmHWM)
	rssAnon int64         // KiB, at the end
	rssFile int64         // KiB, at the end: the executable's and libraries' pages
}

// workerBinaryDrain measures the production worker itself (bin/worker), not a harness: it
// writes o.events ImageStored events into a fresh database, starts the binary on it with image
// conversion on and everything else as configured by default, and waits until every row is done.
// The conversion handler is a real one (a ledger claim, a look in the image store for the
// original, which these keys do not have — done — and the ledger mark), so this is the worker's
// memory with its real wiring, code and handlers; the bench's own worker child carries the whole
// bench binary (server included) and no-op handlers.
func workerBinaryDrain(ctx context.Context, dir, bin string, o options, log *slog.Logger) (binaryResult, error) {
	path := filepath.Join(dir, "worker-binary.db")
	s, err := sqlite.OpenMigrated(ctx, path, log, sqlite.WithSynchronous(o.sync))
	if err != nil {
		return binaryResult{}, err
	}
	defer s.Close()
	if err := enqueueBacklog(ctx, s, o.events, o.payload); err != nil {
		return binaryResult{}, err
	}
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(os.Environ(),
		"DATABASE_URL="+path,
		"DATA_DIR="+filepath.Join(dir, "worker-data"),
		"EVENT_BUS_BACKEND=db",
		"IMAGE_CONVERSION_ENABLED=true",
		"WORKER_METRICS_ADDR=",
		"LOG_LEVEL=warn",
		"SQLITE_SYNCHRONOUS="+string(o.sync),
		"EVENT_QUEUE_BATCH_SIZE="+strconv.Itoa(o.batch),
		"EVENT_QUEUE_CONCURRENCY="+strconv.Itoa(o.conc),
	)
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return binaryResult{}, fmt.Errorf("start %s: %w", bin, err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	status := filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "status")
	deadline := time.Now().Add(30 * time.Minute)
	for {
		// Counting a million rows costs the database under measurement; twice a second is enough.
		time.Sleep(500 * time.Millisecond)
		counts, err := s.QueueCounts(ctx)
		if err != nil {
			return binaryResult{}, err
		}
		if counts["done"] >= o.events {
			break
		}
		if counts["dead_lettered"] > 0 || time.Now().After(deadline) {
			return binaryResult{}, fmt.Errorf("worker binary: %v after %s", counts, time.Since(start).Round(time.Second))
		}
	}
	r := binaryResult{elapsed: time.Since(start)}
	f, err := os.Open(status)
	if err != nil {
		return r, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "VmHWM":
			r.peakRSS = n
		case "RssAnon":
			r.rssAnon = n
		case "RssFile":
			r.rssFile = n
		}
	}
	return r, nil
}
