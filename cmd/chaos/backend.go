package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	_ "github.com/mattn/go-sqlite3" // reads the database for the checks
)

// Leases are short so faults are noticed within the run; a pause lasts past the claim lease but
// not past the ledger lease, as a stalled (not dead) worker would.
const (
	claimLease  = 2 * time.Second
	ledgerLease = 8 * time.Second
	pauseFor    = claimLease + 1500*time.Millisecond
	users       = 4
)

// summary is one backend's result.
type summary struct {
	backend                string
	seed                   uint64
	events                 int
	kills, pauses, outages int
	requests, serverErrors int64
	details                []string
}

func (s summary) violations() int { return len(s.details) }

func (s summary) line() string {
	return fmt.Sprintf("chaos backend=%s seed=%d events=%d kills=%d pauses=%d outages=%d violations=%d (requests=%d 5xx=%d)",
		s.backend, s.seed, s.events, s.kills, s.pauses, s.outages, s.violations(), s.requests, s.serverErrors)
}

// runBackend runs one full chaos round in dir and checks the result.
func runBackend(ctx context.Context, o options, backend, dir string) (summary, error) {
	s := summary{backend: backend, seed: o.seed}
	rnd := rand.New(rand.NewPCG(o.seed, uint64(len(backend))))
	dbPath := filepath.Join(dir, "chaos.db")
	port, err := freePort()
	if err != nil {
		return s, err
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	bus, maxAttempts := backend, 50
	if backend != "db" {
		// The NATS backends re-relay what has no outcome after a horizon derived from the
		// delivery limit (sum of the backoff schedule plus an ack_wait per delivery): 8 keeps it
		// at about a minute with the scaled backoff, inside the quiescence wait.
		bus, maxAttempts = "nats", 8
	}
	common := []string{"DATA_DIR=" + dir, "DATABASE_URL=" + dbPath, "EVENT_BUS_BACKEND=" + bus,
		"LOG_FORMAT=json", "LOG_LEVEL=warn", "BASE_URL=" + base}
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

	server, err := newProc(dir, "server", filepath.Join(o.bin, "server"),
		append(common, "HOST=127.0.0.1", "PORT="+strconv.Itoa(port), "RATE_LIMIT=100000", "SERVER_METRICS_ADDR="))
	if err != nil {
		return s, err
	}
	defer server.close()
	if err := server.start(); err != nil {
		return s, err
	}
	defer server.stop(10 * time.Second)
	if err := waitTCP(fmt.Sprintf("127.0.0.1:%d", port), 30*time.Second); err != nil {
		return s, fmt.Errorf("server: %w (see %s)", err, filepath.Join(dir, "server.log"))
	}

	workerEnv := append(common, "CHAOS_RECORD=1", "WORKER_METRICS_ADDR=",
		"EVENT_QUEUE_CLAIM_LEASE="+claimLease.String(), "EVENT_QUEUE_LEDGER_LEASE="+ledgerLease.String(),
		"EVENT_QUEUE_BACKOFF_BASE=200ms", "EVENT_QUEUE_MAX_ATTEMPTS="+strconv.Itoa(maxAttempts), "SHUTDOWN_GRACE=5s", "NATS_ACK_WAIT=3s")
	if o.breakLedger {
		workerEnv = append(workerEnv, "CHAOS_BREAK_LEDGER=1")
	}
	workers := make([]*proc, o.workers)
	for i := range workers {
		if workers[i], err = newProc(dir, fmt.Sprintf("worker%d", i), filepath.Join(o.bin, "worker"), workerEnv); err != nil {
			return s, err
		}
		defer workers[i].close()
		if err := workers[i].start(); err != nil {
			return s, err
		}
	}

	clients := make([]*client, users)
	for i := range clients {
		if clients[i], err = register(ctx, base, i); err != nil {
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
	faults(loadCtx, o, rnd, workers, nats, &s)
	wg.Wait()
	s.requests, s.serverErrors = st.requests.Load(), st.serverErr.Load()
	if s.serverErrors > 0 {
		s.details = append(s.details, fmt.Sprintf("%d server errors; last: %v", s.serverErrors, st.lastErr.Load()))
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
	db, err := sql.Open("sqlite3", "file:"+dbPath+"?_busy_timeout=10000&mode=ro")
	if err != nil {
		return s, err
	}
	defer db.Close()
	if err := quiesce(ctx, db, backend, 150*time.Second); err != nil {
		s.details = append(s.details, err.Error())
	}
	for _, w := range workers {
		if err := w.stop(15 * time.Second); err != nil {
			s.details = append(s.details, err.Error())
		}
	}
	n, details, err := check(db, backend)
	if err != nil {
		return s, err
	}
	s.events, s.details = n, append(s.details, details...)
	return s, nil
}

// faults kills, pauses and (nats) takes the bus down at random until ctx ends.
func faults(ctx context.Context, o options, rnd *rand.Rand, workers []*proc, nats *proc, s *summary) {
	logf := func(format string, args ...any) {
		if o.verbose {
			fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05.000")}, args...)...)
		}
	}
	// The first faults are one of each kind, in random order, so even a short run has them all.
	kinds := []string{"kill", "pause"}
	if nats != nil {
		kinds = append(kinds, "outage")
	}
	rnd.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
	for i := 0; ; i++ {
		wait := time.Duration(1500+rnd.IntN(2500)) * time.Millisecond
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		w := workers[rnd.IntN(len(workers))]
		p := rnd.IntN(100)
		if i < len(kinds) {
			p = map[string]int{"outage": 0, "pause": 30, "kill": 99}[kinds[i]]
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

func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
