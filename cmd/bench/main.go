// Command bench measures the event pipeline on fresh temporary databases and prints one table:
// throughput draining a backlog, and commit→handler latency at a fixed offered rate. `make bench`
// runs it; flags change the sizes.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// options are the benchmark's flags.
type options struct {
	events   int
	handlers int
	rate     int
	duration time.Duration
	batch    int
	conc     int
	keep     bool
}

// row is one line of the result table.
type row struct{ scenario, result string }

func main() {
	var o options
	flag.IntVar(&o.events, "events", 20000, "backlog size for the throughput scenario")
	flag.IntVar(&o.handlers, "handlers", 3, "no-op handlers registered for every event")
	flag.IntVar(&o.rate, "rate", 500, "offered rate (events/s) for the latency scenario")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "length of the latency scenario")
	flag.IntVar(&o.batch, "batch", 100, "EVENT_QUEUE_BATCH_SIZE")
	flag.IntVar(&o.conc, "concurrency", 16, "EVENT_QUEUE_CONCURRENCY")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary databases")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if err := run(context.Background(), o, os.Stdout); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options, out io.Writer) error {
	if o.events < 1 || o.handlers < 1 || o.rate < 1 || o.duration <= 0 {
		return fmt.Errorf("events, handlers, rate and duration must be positive")
	}
	dir, err := os.MkdirTemp("", "moviesdiary-bench-")
	if err != nil {
		return err
	}
	if !o.keep {
		defer os.RemoveAll(dir)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	fmt.Fprintf(out, "moviesdiary bench: %d CPUs, %s/%s, %s; %d handlers, batch %d, concurrency %d\n\n",
		runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), o.handlers, o.batch, o.conc)

	var rows []row
	full, deliverOnly, err := sqliteLimit(ctx, dir, o, log)
	if err != nil {
		return fmt.Errorf("sqlite limit: %w", err)
	}
	rows = append(rows, row{
		scenario: "SQLite limit (batched minimal writes)",
		result:   fmt.Sprintf("%.0f events/s with the insert, %.0f events/s delivery part", full, deliverOnly),
	})
	r, err := dbBacklog(ctx, dir, o, log)
	if err != nil {
		return fmt.Errorf("db backlog: %w", err)
	}
	rows = append(rows, r)
	r, err = dbLatency(ctx, dir, o, log)
	if err != nil {
		return fmt.Errorf("db latency: %w", err)
	}
	rows = append(rows, r)
	r, err = natsBacklog(ctx, dir, o, log)
	if err != nil {
		return fmt.Errorf("nats backlog: %w", err)
	}
	rows = append(rows, r)
	r, err = natsLatency(ctx, dir, o, log)
	if err != nil {
		return fmt.Errorf("nats latency: %w", err)
	}
	rows = append(rows, r)

	tw := tabwriter.NewWriter(out, 0, 0, 3, ' ', 0)
	fmt.Fprintln(tw, "scenario\tresult")
	fmt.Fprintln(tw, strings.Repeat("-", 40)+"\t"+strings.Repeat("-", 50))
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\n", r.scenario, r.result)
	}
	return tw.Flush()
}

// percentiles formats p50/p99/max of samples.
func percentiles(samples []time.Duration) string {
	if len(samples) == 0 {
		return "no samples"
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	at := func(q float64) time.Duration { return samples[min(len(samples)-1, int(q*float64(len(samples))))] }
	return fmt.Sprintf("p50 %s  p99 %s  max %s  (%d events)", round(at(0.50)), round(at(0.99)), round(samples[len(samples)-1]), len(samples))
}

func round(d time.Duration) time.Duration {
	if d < time.Millisecond {
		return d.Round(time.Microsecond)
	}
	return d.Round(10 * time.Microsecond)
}
