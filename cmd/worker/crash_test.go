package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"moviesdiary/internal/adapters/postgres/pgtest"
	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/config"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
)

// TestMain lets the test binary run as a real worker process (the crash test kills it), and
// otherwise fails the tests if a goroutine outlives them: run must join every part it starts.
func TestMain(m *testing.M) {
	if os.Getenv("WORKER_TEST_CHILD") == "1" {
		os.Exit(childWorker())
	}
	goleak.VerifyTestMain(withPostgres{m}, natsServerGoroutines...)
}

// withPostgres stops the throwaway PostgreSQL cluster (started by the first test that needs
// one) after the tests, before the leak check.
type withPostgres struct{ m *testing.M }

func (w withPostgres) Run() int { return pgtest.Main(w.m) }

// childWorker is the production worker plus handlers that record each execution in the
// recordings table of the same database.
func childWorker() int {
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	log := cfg.NewLogger(os.Stderr)
	path, _ := cfg.DatabasePath()
	rec, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000&_journal_mode=WAL&_synchronous=NORMAL")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer rec.Close()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	var hs []delivery.Handler
	for _, name := range recordingHandlers {
		hs = append(hs, delivery.Handler{Name: name, Types: []string{"SearchReindexRequested"}, Handle: func(ctx context.Context, e delivery.Envelope) error {
			start := time.Now().UnixMilli()
			_, err := rec.ExecContext(ctx, `INSERT INTO recordings (event_id, handler, pid, started_ms, ended_ms) VALUES (?, ?, ?, ?, ?)`,
				e.EventID, name, os.Getpid(), start, time.Now().UnixMilli())
			return err
		}})
	}
	if err := run(ctx, cfg, log, time.Now, hs...); err != nil {
		log.Error("child worker failed", "error", err)
		return 1
	}
	return 0
}

var recordingHandlers = []string{"rec-a", "rec-b", "rec-c"}

// TestWorkerSurvivesSIGKILL writes 2,000 events while a real worker process is SIGKILLed at
// random points and restarted. Afterwards every event must have reached every handler, no
// handler may have started for an event after its ledger row was done, and no two executions
// of one (event, handler) may have overlapped.
func TestWorkerSurvivesSIGKILL(t *testing.T) {
	const events = 2000
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("CRASH_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (rerun with CRASH_SEED=%d)", seed, seed)
	rnd := rand.New(rand.NewPCG(seed, seed))

	dir := t.TempDir()
	path := filepath.Join(dir, "crash.db")
	ctx := context.Background()
	store := sqlitetest.Open(t, path)
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE recordings (event_id TEXT, handler TEXT, pid INTEGER, started_ms INTEGER, ended_ms INTEGER)`); err != nil {
		t.Fatal(err)
	}

	start := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "WORKER_TEST_CHILD=1", "DATABASE_URL="+path, "DATA_DIR="+dir,
			"EVENT_QUEUE_CLAIM_LEASE=3s", "EVENT_QUEUE_LEDGER_LEASE=5s", "EVENT_QUEUE_BATCH_SIZE=50",
			"EVENT_QUEUE_CONCURRENCY=8", "LOG_LEVEL=error", "SHUTDOWN_GRACE=5s", "WORKER_METRICS_ADDR=")
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}

	// Produce in small batches; kill the worker at random moments meanwhile.
	child := start()
	kills := 0
	nextKill := time.Now().Add(time.Duration(50+rnd.IntN(400)) * time.Millisecond)
	for written := 0; written < events; {
		n := min(1+rnd.IntN(40), events-written)
		batch := make([]domain.Event, n)
		for i := range batch {
			batch[i] = domain.SearchReindexRequested{}
		}
		if err := store.Enqueue(ctx, batch...); err != nil {
			t.Fatal(err)
		}
		written += n
		if time.Now().After(nextKill) {
			child.Process.Kill()
			child.Wait()
			kills++
			child = start()
			nextKill = time.Now().Add(time.Duration(50+rnd.IntN(400)) * time.Millisecond)
		}
		time.Sleep(time.Duration(rnd.IntN(8)) * time.Millisecond) // pacing of the load, not synchronisation
	}
	// Keep killing for a while after the last write, then let the last worker drain everything.
	for range 5 {
		time.Sleep(time.Duration(50+rnd.IntN(300)) * time.Millisecond)
		child.Process.Kill()
		child.Wait()
		kills++
		child = start()
	}
	deadline := time.Now().Add(90 * time.Second)
	for count(t, db, `SELECT count(*) FROM event_queue WHERE status = 'done'`) != events {
		if time.Now().After(deadline) {
			t.Fatalf("not drained after the kills: %s", statusCounts(t, db))
		}
		time.Sleep(20 * time.Millisecond)
	}
	// A clean stop exits 0 and leaves nothing claimed.
	child.Process.Signal(syscall.SIGTERM)
	if err := child.Wait(); err != nil {
		t.Fatalf("worker did not stop cleanly on SIGTERM: %v", err)
	}
	t.Logf("%d kills; %s", kills, statusCounts(t, db))

	if n := count(t, db, `SELECT count(*) FROM event_queue WHERE status != 'done'`); n != 0 {
		t.Errorf("%d events not done: %s", n, statusCounts(t, db))
	}
	// Only the recording handlers' rows: production handlers (search-reindex) take the event too.
	if n := count(t, db, `SELECT count(*) FROM processed_events WHERE status = 'done' AND handler LIKE 'rec-%'`); n != events*len(recordingHandlers) {
		t.Errorf("%d ledger rows done, want %d", n, events*len(recordingHandlers))
	}
	missing := count(t, db, `SELECT count(*) FROM event_queue q CROSS JOIN (SELECT 'rec-a' AS h UNION ALL SELECT 'rec-b' UNION ALL SELECT 'rec-c') hs
		WHERE NOT EXISTS (SELECT 1 FROM recordings r WHERE r.event_id = q.event_id AND r.handler = hs.h)`)
	if missing != 0 {
		t.Errorf("%d (event, handler) pairs never ran", missing)
	}
	afterDone := count(t, db, `SELECT count(*) FROM recordings r JOIN processed_events p ON p.event_id = r.event_id AND p.handler = r.handler
		WHERE p.status = 'done' AND r.started_ms > p.processed_at`)
	if afterDone != 0 {
		t.Errorf("%d executions started after their ledger row was done", afterDone)
	}
	overlaps := count(t, db, `SELECT count(*) FROM recordings a JOIN recordings b
		ON a.event_id = b.event_id AND a.handler = b.handler AND a.rowid < b.rowid
		WHERE a.started_ms < b.ended_ms AND b.started_ms < a.ended_ms`)
	if overlaps != 0 {
		t.Errorf("%d pairs of executions of one (event, handler) overlapped", overlaps)
	}
	dups := count(t, db, `SELECT count(*) FROM (SELECT 1 FROM recordings GROUP BY event_id, handler HAVING count(*) > 1)`)
	t.Logf("%d (event, handler) pairs ran more than once (crash after the effect, before the ledger mark)", dups)
}

func count(t *testing.T, db *sql.DB, q string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func statusCounts(t *testing.T, db *sql.DB) string {
	rows, err := db.Query(`SELECT status, count(*) FROM event_queue GROUP BY status ORDER BY status`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	s := ""
	for rows.Next() {
		var st string
		var n int
		rows.Scan(&st, &n)
		s += fmt.Sprintf("%s=%d ", st, n)
	}
	return s
}
