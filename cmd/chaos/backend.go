package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"moviesdiary/internal/adapters/postgres/pgtest"
)

// Leases are short so faults are noticed within the run; a pause lasts past the claim lease but
// not past the ledger lease, as a stalled (not dead) worker would. A job that waited in a
// worker's local queue past the ledger lease (a busy machine, PostgreSQL with fsync on) has its
// claims renewed before it runs, or skips what was taken over (delivery.Engine), so one lease
// serves both stores.
const (
	claimLease  = 2 * time.Second
	ledgerLease = 8 * time.Second
	pauseFor    = claimLease + 1500*time.Millisecond
	users       = 4
)

// summary is one backend's result.
type summary struct {
	backend, store         string
	seed                   uint64
	events                 int
	kills, pauses, outages int
	restarts               int // of PostgreSQL
	requests, serverErrors int64
	outageErrors           int64 // 5xx answers to requests in flight while PostgreSQL was down
	details                []string
}

func (s summary) violations() int { return len(s.details) }

func (s summary) line() string {
	l := fmt.Sprintf("chaos backend=%s seed=%d events=%d kills=%d pauses=%d outages=%d violations=%d (requests=%d 5xx=%d)",
		s.backend, s.seed, s.events, s.kills, s.pauses, s.outages, s.violations(), s.requests, s.serverErrors)
	if s.store == "postgres" {
		l = fmt.Sprintf("chaos store=postgres backend=%s seed=%d events=%d kills=%d pauses=%d outages=%d pg_restarts=%d violations=%d (requests=%d 5xx=%d, of which %d while PostgreSQL was down)",
			s.backend, s.seed, s.events, s.kills, s.pauses, s.outages, s.restarts, s.violations(), s.requests, s.serverErrors, s.outageErrors)
	}
	return l
}

// runBackend runs one full chaos round in dir and checks the result.
func runBackend(ctx context.Context, o options, backend, dir string) (summary, error) {
	s := summary{backend: backend, store: o.store, seed: o.seed}
	rnd := rand.New(rand.NewPCG(o.seed, uint64(len(backend))))
	db, err := openDatabase(ctx, o.store, dir)
	if err != nil {
		return s, err
	}
	defer func() {
		if db.pg != nil && o.keep {
			copyFile(db.pg.Log(), filepath.Join(dir, "postgres.log"))
		}
		db.close()
	}()
	// SQLite: one server, every process on the one file in dir. PostgreSQL: two servers, each
	// process with a data directory of its own (no shared disk), as on several hosts.
	nServers, nWorkers := 1, o.workers
	if db.pg != nil {
		nServers = 2
	}
	if nWorkers == 0 {
		nWorkers = 2
		if db.pg != nil {
			nWorkers = 3
		}
	}
	dataDir := func(name string) (string, error) {
		if db.pg == nil {
			return dir, nil
		}
		d := filepath.Join(dir, name)
		return d, os.MkdirAll(d, 0o755)
	}
	ports := make([]int, nServers)
	bases := make([]string, nServers)
	for i := range ports {
		if ports[i], err = freePort(); err != nil {
			return s, err
		}
		bases[i] = fmt.Sprintf("http://127.0.0.1:%d", ports[i])
	}
	bus, maxAttempts := backend, 50
	if backend != "db" {
		// The NATS backends re-relay what has no outcome after a horizon derived from the
		// delivery limit (sum of the backoff schedule plus an ack_wait per delivery): 8 keeps it
		// at about a minute with the scaled backoff, inside the quiescence wait.
		bus, maxAttempts = "nats", 8
	}
	common := []string{"DATABASE_URL=" + db.url, "EVENT_BUS_BACKEND=" + bus,
		"LOG_FORMAT=json", "LOG_LEVEL=warn", "BASE_URL=" + bases[0], "REGISTRATION_MODE=open"}
	if backend == "core" {
		common = append(common, "NATS_MODE=core")
	}

	var nats *proc
	if backend != "db" {
		natsPort, err := freePort()
		if err != nil {
			return s, err
		}
		self, err := os.Executable()
		if err != nil {
			return s, err
		}
		if nats, err = newProc(dir, "nats", self, nil, "nats-host", "-port", strconv.Itoa(natsPort), "-dir", filepath.Join(dir, "jetstream")); err != nil {
			return s, err
		}
		defer nats.close()
		if err := nats.start(); err != nil {
			return s, err
		}
		defer nats.stop(5 * time.Second)
		if err := waitTCP(fmt.Sprintf("127.0.0.1:%d", natsPort), 10*time.Second); err != nil {
			return s, err
		}
		common = append(common, fmt.Sprintf("NATS_URL=nats://127.0.0.1:%d", natsPort))
	}

	// The servers start one after the other: the first migrates the database.
	servers := make([]*proc, nServers)
	for i := range servers {
		name := "server"
		if nServers > 1 {
			name = fmt.Sprintf("server%d", i)
		}
		data, err := dataDir(name)
		if err != nil {
			return s, err
		}
		if servers[i], err = newProc(dir, name, filepath.Join(o.bin, "server"),
			append(common, "DATA_DIR="+data, "HOST=127.0.0.1", "PORT="+strconv.Itoa(ports[i]), "RATE_LIMIT=100000", "SERVER_METRICS_ADDR=")); err != nil {
			return s, err
		}
		defer servers[i].close()
		if err := servers[i].start(); err != nil {
			return s, err
		}
		defer servers[i].stop(10 * time.Second)
		if err := waitTCP(fmt.Sprintf("127.0.0.1:%d", ports[i]), 30*time.Second); err != nil {
			return s, fmt.Errorf("%s: %w (see %s)", name, err, filepath.Join(dir, name+".log"))
		}
	}

	workerEnv := append(common, "CHAOS_RECORD=1", "WORKER_METRICS_ADDR=",
		"EVENT_QUEUE_CLAIM_LEASE="+claimLease.String(), "EVENT_QUEUE_LEDGER_LEASE="+ledgerLease.String(),
		"EVENT_QUEUE_BACKOFF_BASE=200ms", "EVENT_QUEUE_MAX_ATTEMPTS="+strconv.Itoa(maxAttempts), "SHUTDOWN_GRACE=5s", "NATS_ACK_WAIT=3s")
	if o.breakLedger {
		workerEnv = append(workerEnv, "CHAOS_BREAK_LEDGER=1")
	}
	workers := make([]*proc, nWorkers)
	for i := range workers {
		name := fmt.Sprintf("worker%d", i)
		data, err := dataDir(name)
		if err != nil {
			return s, err
		}
		if workers[i], err = newProc(dir, name, filepath.Join(o.bin, "worker"), append(workerEnv, "DATA_DIR="+data)); err != nil {
			return s, err
		}
		defer workers[i].close()
		if err := workers[i].start(); err != nil {
			return s, err
		}
	}

	clients := make([]*client, users)
	for i := range clients {
		if clients[i], err = register(ctx, bases, bases[0], i); err != nil {
			return s, err
		}
	}

	// Load and faults, concurrently, for the duration.
	loadCtx, stopLoad := context.WithTimeout(ctx, o.duration)
	defer stopLoad()
	var st loadStats
	var wg sync.WaitGroup
	for i, c := range clients {
		others := append(append([]*client{}, clients[:i]...), clients[i+1:]...)
		r := rand.New(rand.NewPCG(o.seed, uint64(100+i)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			drive(loadCtx, c, others, r, &st)
		}()
	}
	windows := faults(loadCtx, o, rnd, workers, nats, db.pg, &s)
	wg.Wait()
	s.requests, s.serverErrors = st.requests.Load(), st.serverErr.Load()
	var outside []failure
	for _, f := range st.failures() {
		if duringOutage(f, windows) {
			s.outageErrors++
		} else {
			outside = append(outside, f)
		}
	}
	if len(outside) > 0 {
		s.details = append(s.details, fmt.Sprintf("%d server errors; last: %v", len(outside), outside[len(outside)-1].what))
	}
	for _, p := range servers {
		if !p.running() {
			s.details = append(s.details, fmt.Sprintf("%s exited during the load (see %s.log); the log ends:\n%s", p.name, p.name, logTail(p.log.Name(), 8)))
		}
	}

	// Everything back up, then quiescence and the checks.
	if nats != nil && !nats.running() {
		if err := nats.start(); err != nil {
			return s, err
		}
	}
	for _, w := range workers {
		w.resume()
		if !w.running() {
			if err := w.start(); err != nil {
				return s, err
			}
		}
	}
	rdb, err := db.open()
	if err != nil {
		return s, err
	}
	defer rdb.Close()
	if err := quiesce(ctx, rdb, backend, 150*time.Second); err != nil {
		s.details = append(s.details, err.Error())
	}
	for _, w := range workers {
		if err := w.stop(15 * time.Second); err != nil {
			s.details = append(s.details, err.Error())
		}
		if n, last := w.unexpectedExits(); n > 0 {
			s.details = append(s.details, fmt.Sprintf("%s exited %d times on its own (see %s.log); %s", w.name, n, w.name, last))
		}
	}
	var acked []string
	for _, c := range clients {
		acked = append(acked, c.logged...)
	}
	n, details, err := check(rdb, db.rowKey, acked)
	if err != nil {
		return s, err
	}
	s.events, s.details = n, append(s.details, details...)
	if o.keep {
		if err := db.export(rdb, dir); err != nil {
			return s, fmt.Errorf("export PostgreSQL's tables: %w", err)
		}
	}
	return s, nil
}

// outage is a span in which PostgreSQL was down, widened by outageGrace at its end.
type outage struct{ from, to time.Time }

// outageGrace is how long after PostgreSQL accepts connections again a 5xx is still put down to
// the outage: the servers' pools find their dead connections as they reuse them.
const outageGrace = 2 * time.Second

// duringOutage reports whether a failed request was in flight during an outage.
func duringOutage(f failure, windows []outage) bool {
	for _, w := range windows {
		if f.sent.Before(w.to) && f.answered.After(w.from) {
			return true
		}
	}
	return false
}

// faults kills, pauses, (nats) takes the bus down and (postgres) restarts PostgreSQL at random
// until ctx ends; it returns when PostgreSQL was down.
func faults(ctx context.Context, o options, rnd *rand.Rand, workers []*proc, nats *proc, pg *pgtest.Server, s *summary) []outage {
	logf := func(format string, args ...any) {
		if o.verbose {
			fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05.000")}, args...)...)
		}
	}
	var windows []outage
	// The first faults are one of each kind, in random order, so even a short run has them all.
	kinds := []string{"kill", "pause"}
	if nats != nil {
		kinds = append(kinds, "outage")
	}
	if pg != nil {
		kinds = append(kinds, "restart")
	}
	rnd.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
	for i := 0; ; i++ {
		wait := time.Duration(1500+rnd.IntN(2500)) * time.Millisecond
		select {
		case <-ctx.Done():
			return windows
		case <-time.After(wait):
		}
		w := workers[rnd.IntN(len(workers))]
		p := rnd.IntN(100)
		if i < len(kinds) {
			p = map[string]int{"outage": 0, "pause": 30, "kill": 60, "restart": 99}[kinds[i]]
		}
		switch {
		case nats != nil && p < 25:
			logf("nats outage")
			nats.kill()
			s.outages++
			sleepCtx(ctx, time.Duration(1000+rnd.IntN(2000))*time.Millisecond)
			if err := nats.start(); err != nil {
				logf("nats restart failed: %v", err)
			}
		case p < 50:
			logf("pause %s for %s", w.name, pauseFor)
			w.pause()
			s.pauses++
			sleepCtx(ctx, pauseFor)
			w.resume()
		case pg != nil && p >= 85:
			// A clean shutdown or a crash (recovered from the WAL), down for a while, under
			// the running servers and workers.
			mode := []string{"fast", "immediate"}[rnd.IntN(2)]
			down := time.Duration(1000+rnd.IntN(2000)) * time.Millisecond
			logf("postgres restart (%s, down %s)", mode, down)
			from := time.Now()
			s.restarts++
			if err := pg.Down(context.Background(), mode); err != nil {
				logf("postgres stop failed: %v", err)
			}
			sleepCtx(ctx, down)
			err := pg.Up(context.Background())
			windows = append(windows, outage{from: from, to: time.Now().Add(outageGrace)})
			if err != nil {
				// Nothing can pass without the database: the round is void.
				s.details = append(s.details, fmt.Sprintf("PostgreSQL did not start again: %v", err))
				return windows
			}
			logf("postgres up")
		default:
			logf("kill %s", w.name)
			w.kill()
			s.kills++
			if err := w.start(); err != nil {
				logf("restart %s failed: %v", w.name, err)
			}
		}
	}
}

// copyFile copies from to to, best effort (-keep's PostgreSQL log).
func copyFile(from, to string) {
	if b, err := os.ReadFile(from); err == nil {
		os.WriteFile(to, b, 0o644)
	}
}

func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
