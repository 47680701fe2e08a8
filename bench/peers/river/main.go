// Command river-bench runs moviesdiary's pipeline scenarios on River (its own module so the
// project never depends on River) on SQLite (riversqlite, the same SQLite settings) and on
// PostgreSQL (riverpgxv5, a throwaway cluster with the same durable defaults as cmd/bench's
// pg-* rows), and prints them beside moviesdiary's figures from the same `make bench-peers` run
// and their ratio: backlog drain, commit→work at 1,000/s and when idle, and the write path.
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
	stores   []string
	latencyD time.Duration
	writeD   time.Duration
}

// stores are the databases River can run on here, in the order they run and print.
var stores = []string{"sqlite", "postgres"}

// parseStores parses -stores: a comma-separated subset of stores, returned in stores' order.
func parseStores(s string) ([]string, error) {
	asked := strings.Split(s, ",")
	for _, a := range asked {
		if !slices.Contains(stores, strings.TrimSpace(a)) {
			return nil, fmt.Errorf("-stores: %q is not one of %s", a, strings.Join(stores, ", "))
		}
	}
	var out []string
	for _, st := range stores {
		if slices.ContainsFunc(asked, func(a string) bool { return strings.TrimSpace(a) == st }) {
			out = append(out, st)
		}
	}
	return out, nil
}

func main() {
	var o options
	flag.IntVar(&o.jobs, "jobs", 20_000, "backlog size of the drain (make bench-peers passes BENCH_PEERS_EVENTS)")
	flag.StringVar(&o.ours, "ours", "bin/bench-ours.json", "moviesdiary's figures, as cmd/bench -figures writes them")
	storesFlag := flag.String("stores", strings.Join(stores, ","), "comma-separated databases to run River on: sqlite (riversqlite), postgres (riverpgxv5 on a throwaway cluster)")
	flag.DurationVar(&o.latencyD, "latency-duration", 5*time.Second, "length of the commit→work run at 1,000 jobs/s")
	flag.DurationVar(&o.writeD, "write-duration", 5*time.Second, "length of the write-path run")
	flag.Parse()
	var err error
	if o.stores, err = parseStores(*storesFlag); err != nil {
		fmt.Fprintln(os.Stderr, "river-bench:", err)
		os.Exit(2)
	}
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
	ours, err := readOurs(o.ours, o.stores)
	if err != nil {
		return err
	}
	type table struct {
		header string
		rows   []comparison
	}
	var tables []table
	if slices.Contains(o.stores, "sqlite") {
		dir, err := os.MkdirTemp("", "river-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		f, err := scenarios(ctx, "SQLite", sqliteBackend(dir), o)
		if err != nil {
			return err
		}
		tables = append(tables, table{
			fmt.Sprintf("River %s on riversqlite, SQLite WAL synchronous=NORMAL, one connection, MaxWorkers %d, fetch cooldown and poll 1 ms; moviesdiary on SQLite synchronous=normal",
				riverVersion(), maxWorkers),
			comparisons(o, ours, "", f)})
	}
	if slices.Contains(o.stores, "postgres") {
		fmt.Fprintln(os.Stderr, "river-bench: starting a throwaway PostgreSQL cluster (durable defaults)")
		c, err := startCluster(ctx)
		if err != nil {
			return fmt.Errorf("postgres: %w", err)
		}
		defer func() {
			if err := c.stop(); err != nil {
				fmt.Fprintln(os.Stderr, "river-bench: stopping PostgreSQL:", err)
			}
		}()
		settings, err := c.settings(ctx)
		if err != nil {
			return fmt.Errorf("postgres: %w", err)
		}
		f, err := scenarios(ctx, "PostgreSQL", postgresBackend(c), o)
		if err != nil {
			return err
		}
		tables = append(tables, table{
			fmt.Sprintf("River %s on riverpgxv5, %s (its own throwaway cluster, started as cmd/bench's: same binaries, initdb flags and postgresql.conf), pgxpool of %d, MaxWorkers %d, fetch cooldown and poll 1 ms; moviesdiary on PostgreSQL synchronous_commit=on, pool of %d",
				riverVersion(), settings, poolConns, maxWorkers, poolConns),
			comparisons(o, ours, "pg_", f)})
	}
	for i, t := range tables {
		if i > 0 {
			fmt.Fprintln(out)
		}
		fmt.Fprintln(out, t.header)
		printTable(out, t.rows)
	}
	fmt.Fprintf(out, "machine: %d CPUs, GOMAXPROCS %d, %s, %s/%s%s\n", runtime.NumCPU(), runtime.GOMAXPROCS(0),
		runtime.Version(), runtime.GOOS, runtime.GOARCH, loadAverage())
	return nil
}

// riverFigures are River's results on one store.
type riverFigures struct {
	drained      float64
	loaded, idle []time.Duration
	wrote        float64
}

// scenarios runs the drain, commit→work at loadRate and when idle, and the write path on b.
func scenarios[TTx any](ctx context.Context, name string, b backend[TTx], o options) (riverFigures, error) {
	var f riverFigures
	var err error
	fmt.Fprintf(os.Stderr, "river-bench: %s: draining %d jobs\n", name, o.jobs)
	if f.drained, err = drain(ctx, b, o.jobs); err != nil {
		return f, fmt.Errorf("%s drain: %w", name, err)
	}
	fmt.Fprintf(os.Stderr, "river-bench: %s: commit→work at %d jobs/s for %s, %d producers\n", name, loadRate, o.latencyD, b.producers)
	if f.loaded, err = commitToWork(ctx, b, "latency", loadRate, max(1, int(o.latencyD.Seconds()*loadRate)), b.producers); err != nil {
		return f, fmt.Errorf("%s latency: %w", name, err)
	}
	fmt.Fprintf(os.Stderr, "river-bench: %s: commit→work when idle, %d jobs 100 ms apart\n", name, idleJobs)
	if f.idle, err = commitToWork(ctx, b, "idle", idleRate, idleJobs, 1); err != nil {
		return f, fmt.Errorf("%s idle: %w", name, err)
	}
	fmt.Fprintf(os.Stderr, "river-bench: %s: write path, %d goroutines for %s\n", name, writers, o.writeD)
	if f.wrote, err = writePath(ctx, b, o.writeD); err != nil {
		return f, fmt.Errorf("%s write path: %w", name, err)
	}
	return f, nil
}

// comparisons are the table rows of River's figures f against ours under the keys with prefix.
func comparisons(o options, ours map[string]float64, prefix string, f riverFigures) []comparison {
	return []comparison{
		{fmt.Sprintf("drain the %d-job backlog, 3 no-op handlers / workers", o.jobs), ours[prefix+"drain"], f.drained, "%.0f events/s", "%.0f jobs/s", false},
		{fmt.Sprintf("commit → work at %d/s, p50", loadRate), ours[prefix+"latency_p50_ms"], quantileMS(f.loaded, 0.5), "%.2f ms", "%.2f ms", true},
		{fmt.Sprintf("commit → work at %d/s, p99", loadRate), ours[prefix+"latency_p99_ms"], quantileMS(f.loaded, 0.99), "%.2f ms", "%.2f ms", true},
		{"commit → work when idle (1 per 100 ms), p50", ours[prefix+"idle_p50_ms"], quantileMS(f.idle, 0.5), "%.2f ms", "%.2f ms", true},
		{"commit → work when idle (1 per 100 ms), p99", ours[prefix+"idle_p99_ms"], quantileMS(f.idle, 0.99), "%.2f ms", "%.2f ms", true},
		{"write path: domain row + event/job in one transaction, 16 goroutines", ours[prefix+"commit"], f.wrote, "%.0f commits/s", "%.0f commits/s", false},
	}
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
