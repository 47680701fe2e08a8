// Command river-bench runs moviesdiary's pipeline scenarios on River (riversqlite, its own
// module so the project never depends on River) with the same SQLite settings, and prints
// them beside moviesdiary's figures from the same `make bench-peers` run and their ratio:
// backlog drain, commit→work at 1,000/s and when idle, and the write path.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"
)

const (
	// loadRate and loadProducers are the commit→work load, as cmd/bench's -rate and its two
	// producers.
	loadRate      = 1000
	loadProducers = 2
	// idleJobs jobs 100 ms apart are the idle case, as cmd/bench's -idle-events (1 event/100 ms).
	idleJobs = 100
	idleRate = 10
)

// options are the benchmark's flags.
type options struct {
	jobs     int
	ours     string
	latencyD time.Duration
	writeD   time.Duration
}

func main() {
	var o options
	flag.IntVar(&o.jobs, "jobs", 20_000, "backlog size of the drain (make bench-peers passes BENCH_PEERS_EVENTS)")
	flag.StringVar(&o.ours, "ours", "bin/bench-ours.json", "moviesdiary's figures, as cmd/bench -figures writes them")
	flag.DurationVar(&o.latencyD, "latency-duration", 5*time.Second, "length of the commit→work run at 1,000 jobs/s")
	flag.DurationVar(&o.writeD, "write-duration", 5*time.Second, "length of the write-path run")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "river-bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options, out io.Writer) error {
	if o.jobs <= 0 || o.latencyD <= 0 || o.writeD <= 0 {
		return errors.New("-jobs, -latency-duration and -write-duration must be positive")
	}
	ours, err := readOurs(o.ours)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "river-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	fmt.Fprintf(os.Stderr, "river-bench: draining %d jobs\n", o.jobs)
	drained, err := drain(ctx, dir, o.jobs)
	if err != nil {
		return fmt.Errorf("drain: %w", err)
	}
	fmt.Fprintf(os.Stderr, "river-bench: commit→work at %d jobs/s for %s\n", loadRate, o.latencyD)
	loaded, err := commitToWork(ctx, dir, "latency", loadRate, max(1, int(o.latencyD.Seconds()*loadRate)), loadProducers)
	if err != nil {
		return fmt.Errorf("latency: %w", err)
	}
	fmt.Fprintf(os.Stderr, "river-bench: commit→work when idle, %d jobs 100 ms apart\n", idleJobs)
	idle, err := commitToWork(ctx, dir, "idle", idleRate, idleJobs, 1)
	if err != nil {
		return fmt.Errorf("idle: %w", err)
	}
	fmt.Fprintf(os.Stderr, "river-bench: write path, %d goroutines for %s\n", writers, o.writeD)
	wrote, err := writePath(ctx, dir, o.writeD)
	if err != nil {
		return fmt.Errorf("write path: %w", err)
	}

	fmt.Fprintf(out, "River %s on riversqlite, SQLite WAL synchronous=NORMAL, one connection, MaxWorkers %d, fetch cooldown and poll 1 ms\n",
		riverVersion(), maxWorkers)
	rows := []comparison{
		{fmt.Sprintf("drain the %d-job backlog, 3 no-op handlers / workers", o.jobs), ours["drain"], drained, "%.0f events/s", "%.0f jobs/s", false},
		{fmt.Sprintf("commit → work at %d/s, p50", loadRate), ours["latency_p50_ms"], quantileMS(loaded, 0.5), "%.2f ms", "%.2f ms", true},
		{fmt.Sprintf("commit → work at %d/s, p99", loadRate), ours["latency_p99_ms"], quantileMS(loaded, 0.99), "%.2f ms", "%.2f ms", true},
		{"commit → work when idle (1 per 100 ms), p50", ours["idle_p50_ms"], quantileMS(idle, 0.5), "%.2f ms", "%.2f ms", true},
		{"commit → work when idle (1 per 100 ms), p99", ours["idle_p99_ms"], quantileMS(idle, 0.99), "%.2f ms", "%.2f ms", true},
		{"write path: domain row + event/job in one transaction", ours["write"], wrote, "%.0f req/s", "%.0f commits/s", false},
	}
	printTable(out, rows)
	fmt.Fprintf(out, "machine: %d CPUs, GOMAXPROCS %d, %s, %s/%s%s\n", runtime.NumCPU(), runtime.GOMAXPROCS(0),
		runtime.Version(), runtime.GOOS, runtime.GOARCH, loadAverage())
	return nil
}

// quantileMS is the q quantile of samples in milliseconds, taken as cmd/bench takes it.
func quantileMS(samples []time.Duration, q float64) float64 {
	if len(samples) == 0 {
		return 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	return float64(s[min(len(s)-1, int(q*float64(len(s))))]) / float64(time.Millisecond)
}

// riverVersion is the River module this binary was built with.
func riverVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/riverqueue/river" {
				return d.Version
			}
		}
	}
	return "(unknown version)"
}

// loadAverage is ", load average X Y Z" from /proc/loadavg, or nothing where there is none:
// the machine may be shared, and the figures move with its load.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return ", load average " + strings.Join(f[:3], " ")
	}
	return ""
}
