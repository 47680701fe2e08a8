package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"time"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/outbox"
)

// workerResult is what a worker child reports after draining a backlog.
type workerResult struct {
	Elapsed time.Duration `json:"elapsed"`
	CPU     time.Duration `json:"cpu"`
	PeakRSS int64         `json:"peak_rss_kib"`
	Error   string        `json:"error,omitempty"`
}

// dbBacklogInChild writes the backlog, then drains it in a separate worker process (this binary
// run as `bench worker-child`), as the real worker would, so its peak RSS is the worker's alone.
func dbBacklogInChild(ctx context.Context, dir string, o options, log *slog.Logger) (workerResult, error) {
	path := filepath.Join(dir, "backlog.db")
	path = filepath.Join(dir, "backlog-"+string(o.sync)+".db")
	s, err := sqlite.OpenMigrated(ctx, path, log, sqlite.WithSynchronous(o.sync))
	if err != nil {
		return workerResult{}, err
	}
	defer s.Close()
	if err := enqueueBacklog(ctx, s, o.events, o.payload); err != nil {
		return workerResult{}, err
	}
	self, err := os.Executable()
	if err != nil {
		return workerResult{}, err
	}
	cmd := exec.CommandContext(ctx, self, "worker-child", "-db", path, "-events", strconv.Itoa(o.events),
		"-handlers", strconv.Itoa(o.handlers), "-batch", strconv.Itoa(o.batch), "-concurrency", strconv.Itoa(o.conc),
		"-synchronous", string(o.sync))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return workerResult{}, fmt.Errorf("worker child: %w", err)
	}
	var r workerResult
	if err := json.Unmarshal(out, &r); err != nil {
		return workerResult{}, fmt.Errorf("worker child said %q: %w", out, err)
	}
	if r.Error != "" {
		return r, fmt.Errorf("worker child: %s", r.Error)
	}
	counts, err := s.QueueCounts(ctx)
	if err != nil {
		return r, err
	}
	if counts["done"] != o.events {
		return r, fmt.Errorf("after the worker child: %v, want %d done", counts, o.events)
	}
	return r, nil
}

// workerChild drains the backlog at -db with no-op handlers and prints a workerResult.
func workerChild(args []string) int {
	fs := flag.NewFlagSet("worker-child", flag.ContinueOnError)
	path := fs.String("db", "", "database: a SQLite file or a postgres:// URL")
	var o options
	fs.IntVar(&o.events, "events", 0, "")
	fs.IntVar(&o.handlers, "handlers", 3, "")
	fs.IntVar(&o.batch, "batch", 100, "")
	fs.IntVar(&o.conc, "concurrency", 16, "")
	fs.BoolVar(&o.shared, "shared", false, "other workers drain the same backlog: wait for every row done, not for this one's handlers")
	sync := fs.String("synchronous", string(sqlite.SynchronousDefault), "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	o.sync = sqlite.Synchronous(*sync)
	// BENCH_WORKER_CPUPROFILE=file profiles the drain (the parent's -cpuprofile sees only the
	// backlog being written).
	if file := os.Getenv("BENCH_WORKER_CPUPROFILE"); file != "" {
		if f, err := os.Create(file); err == nil {
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	// BENCH_WORKER_TRACE=file writes an execution trace of the drain (go tool trace).
	if file := os.Getenv("BENCH_WORKER_TRACE"); file != "" {
		if f, err := os.Create(file); err == nil {
			trace.Start(f)
			defer trace.Stop()
		}
	}
	memReport(os.Stderr, "at start")
	writeHeapProfile()
	res := drainInProcess(*path, o)
	memReport(os.Stderr, "after the drain")
	json.NewEncoder(os.Stdout).Encode(res)
	return 0
}

// drainInProcess drains the backlog of the database at path, a SQLite file or a postgres:// URL
// (which selects PostgreSQL, as DATABASE_URL does).
func drainInProcess(path string, o options) workerResult {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var (
		counts outboxWriter
		ledger delivery.Ledger
		q      interface {
			delivery.Source
			Close() error
		}
	)
	if postgres.IsURL(path) {
		s, err := postgres.Open(ctx, path)
		if err != nil {
			return workerResult{Error: err.Error()}
		}
		defer s.Close()
		counts, ledger, q = s, s.Ledger(), s.Queue(outbox.QueueConfig{Logger: log})
	} else {
		s, err := sqlite.Open(ctx, path, sqlite.WithSynchronous(o.sync))
		if err != nil {
			return workerResult{Error: err.Error()}
		}
		defer s.Close()
		counts, ledger, q = s, s.Ledger(), s.Queue(outbox.QueueConfig{Logger: log})
	}
	defer q.Close()
	memReport(os.Stderr, "store open")
	rec := newRecorder()
	engine, err := delivery.NewEngine(delivery.Config{Logger: log}, ledger, rec.handlers(o.handlers, false)...)
	if err != nil {
		return workerResult{Error: err.Error()}
	}
	pump := delivery.NewPump(q, engine, delivery.PumpConfig{BatchSize: o.batch, Concurrency: o.conc, Logger: log})
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	start, cpu0 := time.Now(), cpuTime()
	done := make(chan struct{})
	go func() {
		defer close(done)
		pump.Run(ctx)
	}()
	want := int64(o.events * o.handlers)
	if o.shared {
		// Other workers handle some of the events: only the rows tell, counted every 20 ms.
		err = waitRowsDone(ctx, counts, o.events, 30*time.Minute, time.Now().Add(30*time.Minute), 20*time.Millisecond)
	} else {
		err = waitDone(ctx, counts, o.events, 30*time.Minute, func() bool { return rec.calls.Load() >= want })
	}
	r := workerResult{Elapsed: time.Since(start), CPU: cpuTime() - cpu0, PeakRSS: peakRSS()}
	stop()
	<-done
	if err != nil {
		r.Error = err.Error()
	}
	return r
}

// peakRSS is this process's peak resident set (VmHWM) in KiB, or -1 where /proc has none.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}
