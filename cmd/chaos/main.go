// Command chaos proves the outbox's promises under faults. It starts the real binaries as
// processes on loopback — one server and two workers on a SQLite file, or with -store postgres
// two servers and three workers on one throwaway PostgreSQL cluster, and a NATS server for the
// nats backend — drives reviews, watchlist and follow requests over HTTP (round-robin over the
// servers), and meanwhile SIGKILLs and restarts workers, SIGSTOPs one past its claim lease,
// (nats) kills and restarts the NATS server, and (postgres) stops PostgreSQL, cleanly or as a
// crash, and starts it again under the running processes. Then it waits for quiescence and
// checks, from the database and the workers' execution records (CHAOS_RECORD=1), that every
// event reached every handler, no two executions of one (event, handler) overlapped, nothing
// was dead-lettered or left processing, the ledger agrees with the queue, and every review a
// client saw created has its event. A 5xx is a violation unless PostgreSQL was down while it
// was in flight; those are counted apart. It prints one summary line per backend and exits 1 on
// any violation.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

// options are the harness's flags.
type options struct {
	backends     []string
	store        string
	duration     time.Duration
	seed         uint64
	bin          string
	workers      int
	breakLedger  bool
	expectBroken bool
	keep         bool
	verbose      bool
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "nats-host" {
		os.Exit(natsHost(os.Args[2:]))
	}
	var o options
	backend := flag.String("backend", "both", "db, nats (JetStream), core (core NATS), both (db and nats) or all")
	flag.DurationVar(&o.duration, "duration", 40*time.Second, "how long the load and the faults run, per backend")
	flag.Uint64Var(&o.seed, "seed", uint64(time.Now().UnixNano()%1_000_000), "random seed; the same seed replays the same faults and load")
	flag.StringVar(&o.bin, "bin", "bin", "directory holding the server and worker binaries")
	flag.StringVar(&o.store, "store", "sqlite", "sqlite (one server) or postgres (two servers on a throwaway PostgreSQL cluster, restarted during the load)")
	flag.IntVar(&o.workers, "workers", 0, "worker processes (0: 2 on sqlite, 3 on postgres)")
	flag.BoolVar(&o.breakLedger, "break-ledger", false, "run the workers without the ledger (CHAOS_BREAK_LEDGER=1): the checks must fail")
	flag.BoolVar(&o.expectBroken, "expect-violations", false, "exit 0 only if violations were found (tests the checker)")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directory with databases and logs")
	flag.BoolVar(&o.verbose, "v", false, "log faults as they happen")
	flag.Parse()
	switch *backend {
	case "both":
		o.backends = []string{"db", "nats"}
	case "all":
		o.backends = []string{"db", "nats", "core"}
	case "db", "nats", "core":
		o.backends = []string{*backend}
	default:
		fmt.Fprintf(os.Stderr, "chaos: -backend %q is not db, nats, core, both or all\n", *backend)
		os.Exit(2)
	}
	if o.store != "sqlite" && o.store != "postgres" {
		fmt.Fprintf(os.Stderr, "chaos: -store %q is not sqlite or postgres\n", o.store)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	violations, err := run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		os.Exit(1)
	}
	if o.expectBroken {
		if violations == 0 {
			fmt.Fprintln(os.Stderr, "chaos: expected violations from a broken build, found none")
			os.Exit(1)
		}
		return
	}
	if violations > 0 {
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) (int, error) {
	bin, err := filepath.Abs(o.bin)
	if err != nil {
		return 0, err
	}
	o.bin = bin
	if o.store == "" {
		o.store = "sqlite"
	}
	for _, name := range []string{"server", "worker"} {
		if _, err := os.Stat(filepath.Join(o.bin, name)); err != nil {
			return 0, fmt.Errorf("%s binary missing in %s (run make build): %w", name, o.bin, err)
		}
	}
	total := 0
	for _, backend := range o.backends {
		dir, err := os.MkdirTemp("", "moviesdiary-chaos-"+backend+"-")
		if err != nil {
			return total, err
		}
		s, err := runBackend(ctx, o, backend, dir)
		// A round with violations keeps its directory to be looked into, unless a broken ledger
		// was asked for.
		if !o.keep && err == nil && (s.violations() == 0 || o.breakLedger) {
			os.RemoveAll(dir)
		} else {
			fmt.Fprintf(os.Stderr, "chaos: databases and logs kept in %s\n", dir)
		}
		if err != nil {
			return total, fmt.Errorf("%s: %w", backend, err)
		}
		fmt.Println(s.line())
		for i, v := range s.details {
			if i == 20 {
				fmt.Printf("  … %d more\n", len(s.details)-20)
				break
			}
			fmt.Println("  violation:", v)
		}
		total += s.violations()
	}
	return total, nil
}
