// Command bench is the one answer to "how fast is it": it measures the event pipeline on fresh
// temporary databases and an embedded JetStream server and prints one table — throughput on a
// backlog and at a steady offered rate for both backends, commit→handler latency under load and
// when idle, the server's write path with and without the outbox, the worker's peak memory, and
// SQLite's own limit for the same writes measured in the same run, so every figure is also a
// fraction of what this machine can do. `make bench` runs it; flags change the sizes.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"moviesdiary/internal/adapters/postgres/pgtest"
	"moviesdiary/internal/adapters/sqlite"
)

// options are the benchmark's flags.
type options struct {
	shared     bool // worker-child: other workers drain the same backlog
	events     int
	handlers   int
	payload    int
	steadyRate int
	loadRate   int
	duration   time.Duration
	idle       int
	batch      int
	conc       int
	writeD     time.Duration
	clients    int
	// writeSpread is how many users, each reviewing a movie of its own, the write path's
	// clients post as (-write-spread).
	writeSpread int
	relayN      int
	only        string
	keep        bool
	// mixedSizes, mixedClients and mixedD shape the mixed read/write load (-only mixed).
	mixedSizes   []int
	mixedClients []int
	mixedD       time.Duration
	// figures is where to write the numbers bench-peers compares, as JSON ("" for nowhere).
	figures string
	// syncs are the SQLITE_SYNCHRONOUS settings the write path and the db drain are measured
	// with, each in the same run (the other scenarios use the store's default).
	syncs []sqlite.Synchronous
	// sync is the setting of this measurement (and of a worker child).
	sync sqlite.Synchronous
	// workerBin is the production worker binary the worker scenario drains a backlog with.
	workerBin string
	// pgCommits are the synchronous_commit settings the PostgreSQL rows run with, each in the
	// same run; pgCommit is the setting of this measurement, and pg the throwaway cluster.
	pgCommits []string
	pgCommit  string
	pg        *pgtest.Server
	// resolveRows and resolveFilms shape the resolve scenario's Letterboxd diary, and tmdbRate
	// is the rate its fake TMDb allows.
	resolveRows, resolveFilms int
	tmdbRate                  float64
	// gridReviews is the grid scenario's diary size.
	gridReviews int
	// mergeReviews are the reviews of the movie the merge scenario merges.
	mergeReviews int
}

// row is one line of the result table.
type row struct{ scenario, result string }

func main() {
	if len(os.Args) > 1 && os.Args[1] == "worker-child" {
		os.Exit(workerChild(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "server-child" {
		os.Exit(serverChildMain(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "hosts-child" {
		os.Exit(hostsChild(os.Args[2:]))
	}
	var o options
	flag.IntVar(&o.events, "events", 100_000, "backlog size for the throughput scenarios")
	flag.IntVar(&o.handlers, "handlers", 3, "no-op handlers registered for every event")
	flag.IntVar(&o.payload, "payload", 128, "payload size in bytes")
	flag.IntVar(&o.steadyRate, "steady-rate", 5000, "offered rate (events/s) for the steady throughput scenarios")
	flag.IntVar(&o.loadRate, "rate", 1000, "offered rate (events/s) for the latency scenarios")
	flag.DurationVar(&o.duration, "duration", 5*time.Second, "length of each offered-load scenario")
	flag.IntVar(&o.idle, "idle-events", 100, "events sent one every 100 ms for the idle latency")
	flag.IntVar(&o.batch, "batch", 100, "EVENT_QUEUE_BATCH_SIZE")
	flag.IntVar(&o.conc, "concurrency", 16, "EVENT_QUEUE_CONCURRENCY")
	flag.DurationVar(&o.writeD, "write-duration", time.Second, "length of each write-path run (5 paired runs)")
	flag.IntVar(&o.clients, "clients", 16, "concurrent HTTP clients for the write path")
	flag.IntVar(&o.writeSpread, "write-spread", 1, "users (each with a movie of its own) the write path's clients post as, client i as user i mod this; 1: every review updates one user's and one movie's counters, hot rows for PostgreSQL")
	flag.IntVar(&o.relayN, "relay-events", 20_000, "backlog size for the relay fsync scenario")
	flag.StringVar(&o.only, "only", "", "comma-separated scenarios to run: limit,db,worker,nats,relay,latency,idle,write,commit,mixed,fanout,resolve,grid,merge,pg-db,pg-workers,pg-latency,pg-idle,pg-write,pg-commit (default all)")
	flag.StringVar(&o.workerBin, "worker", "bin/worker", "the worker binary the worker scenario measures (make bench builds it)")
	mixedSizes := flag.String("mixed-reviews", "1000,100000", "comma-separated database sizes (reviews) of the mixed load")
	mixedClients := flag.String("mixed-clients", "8,32,128", "comma-separated client counts of the mixed load")
	flag.StringVar(&o.figures, "figures", "", "write the figures make bench-peers compares with River to this JSON file")
	flag.DurationVar(&o.mixedD, "mixed-duration", 5*time.Second, "length of each mixed-load level")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary databases")
	flag.IntVar(&o.resolveRows, "resolve-rows", resolveRowsDefault, "rows of the resolve scenario's Letterboxd diary")
	flag.IntVar(&o.resolveFilms, "resolve-films", resolveFilmsDefault, "distinct films among them (the rest are rewatches)")
	flag.Float64Var(&o.tmdbRate, "tmdb-rate", tmdbRateDefault, "requests per second the resolve scenario's fake TMDb allows before it answers 429")
	flag.IntVar(&o.gridReviews, "grid-reviews", gridReviewsDefault, "reviews in the diary the grid scenario serves")
	flag.IntVar(&o.mergeReviews, "merge-reviews", mergeReviewsDefault, "reviews of the movie the merge scenario merges")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	syncs := flag.String("synchronous", "normal,full", "comma-separated SQLITE_SYNCHRONOUS settings the write path and the db drain run with")
	pgCommits := flag.String("pg-synchronous-commit", strings.Join(pgCommits, ","), "comma-separated synchronous_commit settings (on, off) the pg-* scenarios run with")
	flag.Parse()
	var err error
	if o.pgCommits, err = parsePGCommits(*pgCommits); err != nil {
		fmt.Fprintln(os.Stderr, "bench: -pg-synchronous-commit:", err)
		os.Exit(2)
	}
	for _, v := range strings.Split(*syncs, ",") {
		sv, err := sqlite.ParseSynchronous(strings.TrimSpace(v))
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench: -synchronous:", err)
			os.Exit(2)
		}
		o.syncs = append(o.syncs, sv)
	}
	for _, l := range []struct {
		flag string
		dst  *[]int
	}{{*mixedSizes, &o.mixedSizes}, {*mixedClients, &o.mixedClients}} {
		for _, v := range strings.Split(l.flag, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 1 {
				fmt.Fprintf(os.Stderr, "bench: %q is not a positive count\n", v)
				os.Exit(2)
			}
			*l.dst = append(*l.dst, n)
		}
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
	}
	err = run(context.Background(), o, os.Stdout)
	pprof.StopCPUProfile()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func (o options) wants(scenario string) bool {
	return o.only == "" || slices.Contains(strings.Split(o.only, ","), scenario)
}

func run(ctx context.Context, o options, out io.Writer) error {
	if o.events < 1 || o.handlers < 1 || o.steadyRate < 1 || o.loadRate < 1 || o.duration <= 0 || o.payload < 0 {
		return fmt.Errorf("events, handlers, rates and duration must be positive")
	}
	dir, err := os.MkdirTemp("", "moviesdiary-bench-")
	if err != nil {
		return err
	}
	if !o.keep {
		defer os.RemoveAll(dir)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	fmt.Fprintf(out, "moviesdiary bench: %d CPUs, %s/%s, %s; %d handlers, %d-byte payloads, batch %d, concurrency %d\n\n",
		runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), o.handlers, o.payload, o.batch, o.conc)

	var rows []row
	add := func(scenario, format string, args ...any) {
		rows = append(rows, row{scenario, fmt.Sprintf(format, args...)})
		fmt.Fprintf(os.Stderr, "done: %s\n", scenario)
	}
	if o.wantsPostgres() {
		srv, err := startPostgres(ctx)
		if err != nil {
			add("pg: PostgreSQL rows", "not measured: %v", err)
		} else {
			defer srv.Stop()
			o.pg = srv
		}
	}
	var limitFull, limitDeliver float64
	// drains are SQLite's drain rates by synchronous setting, for the PostgreSQL rows' ratios.
	drains := map[sqlite.Synchronous]float64{}
	// figures are the numbers bench-peers compares with River (-figures).
	figures := map[string]float64{}
	frac := func(rate, limit float64) string {
		if limit == 0 {
			return ""
		}
		return fmt.Sprintf(", %.0f%% of the limit", 100*rate/limit)
	}
	if o.wants("limit") || o.wants("db") || o.wants("nats") {
		limitFull, limitDeliver, err = sqliteLimit(ctx, dir, o, log)
		if err != nil {
			return fmt.Errorf("sqlite limit: %w", err)
		}
		add("SQLite limit, batched minimal writes", "%.0f events/s with the insert; %.0f events/s delivery part", limitFull, limitDeliver)
	}
	if o.wants("db") {
		for _, sync := range o.syncs {
			o := o
			o.sync = sync
			r, err := dbBacklogInChild(ctx, dir, o, log)
			if err != nil {
				return fmt.Errorf("db backlog: %w", err)
			}
			rate := float64(o.events) / r.Elapsed.Seconds()
			drains[sync] = rate
			if sync == o.syncs[0] {
				figures["drain"] = rate
			}
			add(fmt.Sprintf("db: drain %d-event backlog, synchronous=%s", o.events, sync), "%.0f events/s (%s%s; worker process %.0f µs CPU/event)",
				rate, r.Elapsed.Round(time.Millisecond), frac(rate, limitDeliver), float64(r.CPU.Microseconds())/float64(o.events))
			add("db: worker peak RSS draining it, synchronous="+string(sync), "%.1f MiB", float64(r.PeakRSS)/1024)
		}
		s, err := offerLoad(ctx, dir, "db-steady", o, log, newDBPipeline, o.steadyRate, o.duration, 8)
		if err != nil {
			return fmt.Errorf("db steady: %w", err)
		}
		add(fmt.Sprintf("db: steady %d events/s offered", o.steadyRate), "%.0f events/s handled%s; commit→handler %s",
			s.handled, frac(s.handled, limitFull), percentiles(s.latencies))
	}
	if _, err := os.Stat(o.workerBin); o.wants("worker") && err != nil {
		add("worker binary: peak RSS", "not measured: %v (make bench builds bin/worker)", err)
	} else if o.wants("worker") {
		o := o
		o.sync = o.syncs[0]
		r, err := workerBinaryDrain(ctx, dir, o.workerBin, o, log)
		if err != nil {
			return fmt.Errorf("worker binary: %w", err)
		}
		add(fmt.Sprintf("worker binary: peak RSS draining %d events", o.events),
			"%.1f MiB (at the end %.1f MiB anonymous + %.1f MiB file-backed); %.0f events/s with the image conversion handler, start-up included",
			float64(r.peakRSS)/1024, float64(r.rssAnon)/1024, float64(r.rssFile)/1024, float64(o.events)/r.elapsed.Seconds())
	}
	if o.wants("nats") {
		b, err := drainBacklog(ctx, dir, "nats-backlog", o, log, newNATSPipeline)
		if err != nil {
			return fmt.Errorf("nats backlog: %w", err)
		}
		add(fmt.Sprintf("nats: relay+handle %d-event backlog", o.events), "%.0f events/s (%s%s; %.0f µs CPU/event incl. nats-server)",
			b.rate, b.elapsed.Round(time.Millisecond), frac(b.rate, limitDeliver), float64(b.cpu.Nanoseconds())/1000)
		s, err := offerLoad(ctx, dir, "nats-steady", o, log, newNATSPipeline, o.steadyRate, o.duration, 8)
		if err != nil {
			return fmt.Errorf("nats steady: %w", err)
		}
		add(fmt.Sprintf("nats: steady %d events/s offered", o.steadyRate), "%.0f events/s handled%s; commit→handler %s",
			s.handled, frac(s.handled, limitFull), percentiles(s.latencies))
	}
	if o.wants("relay") {
		// Same run, alternating, so the ratio is not skewed by the machine's load drifting.
		var def, always []relayResult
		for i := range 2 {
			for _, sync := range []bool{false, true} {
				r, err := relayBacklog(ctx, dir, fmt.Sprintf("relay-%d-%t", i, sync), o.relayN, o.payload, sync, log)
				if err != nil {
					return fmt.Errorf("relay backlog (sync always %t): %w", sync, err)
				}
				if sync {
					always = append(always, r)
				} else {
					def = append(def, r)
				}
			}
		}
		best := func(rs []relayResult) relayResult {
			b := rs[0]
			for _, r := range rs[1:] {
				if r.rate > b.rate {
					b = r
				}
			}
			return b
		}
		d, a := best(def), best(always)
		add(fmt.Sprintf("relay: %d-event backlog, nats default fsync", o.relayN), "%.0f events/s (%s)", d.rate, d.elapsed.Round(time.Millisecond))
		add(fmt.Sprintf("relay: %d-event backlog, sync_interval always", o.relayN), "%.0f events/s (%s), %.0f%% of the default's",
			a.rate, a.elapsed.Round(time.Millisecond), 100*a.rate/d.rate)
	}
	for _, b := range []struct {
		name string
		new  newPipeline
	}{{"db", newDBPipeline}, {"nats", newNATSPipeline}} {
		if o.wants("latency") {
			s, err := offerLoad(ctx, dir, b.name+"-latency", o, log, b.new, o.loadRate, o.duration, 2)
			if err != nil {
				return fmt.Errorf("%s latency: %w", b.name, err)
			}
			add(fmt.Sprintf("%s: commit→handler at %d events/s", b.name, o.loadRate), "%s", percentiles(s.latencies))
			if b.name == "db" {
				figures["latency_p50_ms"], figures["latency_p99_ms"] = quantileMS(s.latencies, 0.5), quantileMS(s.latencies, 0.99)
			}
		}
		if o.wants("idle") {
			s, err := offerLoad(ctx, dir, b.name+"-idle", o, log, b.new, 10, time.Duration(o.idle)*100*time.Millisecond, 1)
			if err != nil {
				return fmt.Errorf("%s idle: %w", b.name, err)
			}
			add(b.name+": commit→handler when idle (1 event/100 ms)", "%s", percentiles(s.latencies))
			if b.name == "db" {
				figures["idle_p50_ms"], figures["idle_p99_ms"] = quantileMS(s.latencies, 0.5), quantileMS(s.latencies, 0.99)
			}
		}
	}
	if o.pg != nil && (o.wants("pg-db") || o.wants("pg-workers") || o.wants("pg-latency") || o.wants("pg-idle")) {
		if err := postgresScenarios(ctx, dir, o, log, sqliteRun{drains: drains, figures: figures}, figures, add); err != nil {
			return fmt.Errorf("postgres: %w", err)
		}
	}
	// SQLite's and PostgreSQL's write paths run in the same rounds, so their ratio is taken
	// within each round.
	var modes []writeMode
	if o.wants("write") {
		modes = sqliteWriteModes(dir, o.syncs, log)
	}
	// pgFirst is the index of PostgreSQL's first mode among modes, rates too.
	pgFirst := len(modes)
	if o.pg != nil && o.wants("pg-write") {
		modes = append(modes, pgWriteModes(o, log)...)
	}
	if len(modes) > 0 {
		wr, rates, err := writePath(ctx, o.clients, o.writeSpread, o.writeD, modes, log)
		if err != nil {
			return fmt.Errorf("write path: %w", err)
		}
		for _, r := range wr {
			add(r.scenario, "%s", r.result)
		}
		if o.wants("write") {
			figures["write"] = rates[0]
		}
		if i := slices.Index(o.pgCommits, figureCommit); o.pg != nil && o.wants("pg-write") && i >= 0 {
			figures[pgFigure("write")] = rates[pgFirst+i]
		}
	}

	if err := commitScenarios(ctx, dir, o, log, figures, add); err != nil {
		return err
	}

	if o.wants("fanout") {
		if err := fanoutScenarios(ctx, dir, o, log, add); err != nil {
			return fmt.Errorf("fan-out: %w", err)
		}
	}

	if o.wants("mixed") {
		mr, err := mixedLoad(ctx, dir, o, log)
		if err != nil {
			return fmt.Errorf("mixed load: %w", err)
		}
		rows = append(rows, mr...)
	}

	if o.wants("resolve") {
		rr, err := resolveScenario(ctx, dir, o, log)
		if err != nil {
			return fmt.Errorf("resolve: %w", err)
		}
		rows = append(rows, rr...)
		fmt.Fprintln(os.Stderr, "done: resolve")
	}
	if o.wants("grid") {
		gr, err := gridScenario(ctx, dir, o, log)
		if err != nil {
			return fmt.Errorf("grid: %w", err)
		}
		rows = append(rows, gr...)
		fmt.Fprintln(os.Stderr, "done: grid")
	}

	if o.wants("merge") {
		mr, err := mergeScenario(ctx, dir, o.mergeReviews, log)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		rows = append(rows, mr...)
		fmt.Fprintln(os.Stderr, "done: merge")
	}

	if o.figures != "" {
		b, _ := json.Marshal(figures)
		if err := os.WriteFile(o.figures, b, 0o644); err != nil {
			return err
		}
	}

	tw := tabwriter.NewWriter(out, 0, 0, 3, ' ', 0)
	fmt.Fprintln(tw, "scenario\tresult")
	fmt.Fprintln(tw, strings.Repeat("-", 44)+"\t"+strings.Repeat("-", 60))
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
	slices.Sort(samples)
	at := func(q float64) time.Duration { return samples[min(len(samples)-1, int(q*float64(len(samples))))] }
	return fmt.Sprintf("p50 %s  p99 %s  max %s  (%d events)", round(at(0.50)), round(at(0.99)), round(samples[len(samples)-1]), len(samples))
}

// quantileMS is the q quantile of samples in milliseconds.
func quantileMS(samples []time.Duration, q float64) float64 {
	if len(samples) == 0 {
		return 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	return float64(s[min(len(s)-1, int(q*float64(len(s))))]) / float64(time.Millisecond)
}

func round(d time.Duration) time.Duration {
	if d < time.Millisecond {
		return d.Round(time.Microsecond)
	}
	return d.Round(10 * time.Microsecond)
}
