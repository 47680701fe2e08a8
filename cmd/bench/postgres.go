package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver, for the statistics

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/postgres/pgtest"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/outbox"
)

// pgCommits are the synchronous_commit settings the PostgreSQL rows may run with: "on" waits for
// the WAL flush at every commit (PostgreSQL's default, as durable as SQLite's synchronous=FULL);
// "off" returns before it, the WAL writer flushing within 3 × wal_writer_delay, which is the
// nearer match to SQLite's synchronous=NORMAL in WAL mode (no fsync at commit either).
var pgCommits = []string{"on", "off"}

// parsePGCommits parses -pg-synchronous-commit: a comma-separated list of on and off.
func parsePGCommits(s string) ([]string, error) {
	var out []string
	for _, v := range strings.Split(s, ",") {
		v = strings.ToLower(strings.TrimSpace(v))
		if v != "on" && v != "off" {
			return nil, fmt.Errorf("synchronous_commit %q: want on or off", v)
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out, nil
}

// newPGPipeline is the db backend on PostgreSQL: the worker's pump claims from the outbox with
// FOR UPDATE SKIP LOCKED and is woken by LISTEN/NOTIFY.
func newPGPipeline(ctx context.Context, _, name string, o options, log *slog.Logger, hs []delivery.Handler) (pipeline, error) {
	url, err := pgDatabase(ctx, o, name)
	if err != nil {
		return nil, err
	}
	prod, err := postgres.OpenMigrated(ctx, url, log)
	if err != nil {
		return nil, err
	}
	worker, err := postgres.Open(ctx, url)
	if err != nil {
		prod.Close()
		return nil, err
	}
	q := worker.Queue(outbox.QueueConfig{Logger: log})
	return newStorePipeline(prod, q, worker.Ledger(), o, log, hs, q.Close, worker.Close, prod.Close)
}

// pgDatabase creates the database name-<synchronous_commit> on o.pg and returns its URL, which
// sets synchronous_commit to o.pgCommit for every connection made with it (pgx sends unknown URL
// parameters as run-time parameters at connect). It checks the server took the setting.
func pgDatabase(ctx context.Context, o options, name string) (string, error) {
	url, err := o.pg.CreateDatabase(ctx, name+"-"+o.pgCommit)
	if err != nil {
		return "", err
	}
	url += "&synchronous_commit=" + o.pgCommit
	db, err := sql.Open("pgx", url)
	if err != nil {
		return "", err
	}
	defer db.Close()
	var got string
	if err := db.QueryRowContext(ctx, "SHOW synchronous_commit").Scan(&got); err != nil {
		return "", err
	}
	if got != o.pgCommit {
		return "", fmt.Errorf("database %s: synchronous_commit is %s, want %s", name, got, o.pgCommit)
	}
	return url, nil
}

// pgDrain is a PostgreSQL backlog drain's figures: the worker child's, and the server's side.
type pgDrain struct {
	workerResult
	serverCPU time.Duration // the PostgreSQL processes' CPU time while the child ran
	stats     pgStats       // what the database and the WAL counted while the child ran
}

// pgBacklogInChild writes the backlog into a fresh database, then drains it in a worker child
// (this binary run as `bench worker-child -db postgres://…`), as dbBacklogInChild does for
// SQLite, counting the server's CPU time, transactions and WAL flushes meanwhile.
func pgBacklogInChild(ctx context.Context, o options, log *slog.Logger) (pgDrain, error) {
	url, err := pgDatabase(ctx, o, "backlog")
	if err != nil {
		return pgDrain{}, err
	}
	s, err := postgres.OpenMigrated(ctx, url, log)
	if err != nil {
		return pgDrain{}, err
	}
	err = enqueueBacklog(ctx, s, o.events, o.payload)
	// The producer's sessions end before the count starts, so their statistics are in.
	s.Close()
	if err != nil {
		return pgDrain{}, err
	}
	db, err := sql.Open("pgx", url)
	if err != nil {
		return pgDrain{}, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if statementsReport {
		if err := resetStatements(ctx, db); err != nil {
			return pgDrain{}, fmt.Errorf("pg_stat_statements: %w", err)
		}
	}
	before, err := readPGStats(ctx, db)
	if err != nil {
		return pgDrain{}, err
	}
	pid, err := o.pg.PID()
	if err != nil {
		return pgDrain{}, err
	}
	cpu0, err := processTreeCPU(pid)
	if err != nil {
		return pgDrain{}, err
	}
	self, err := os.Executable()
	if err != nil {
		return pgDrain{}, err
	}
	cmd := exec.CommandContext(ctx, self, "worker-child", "-db", url, "-events", strconv.Itoa(o.events),
		"-handlers", strconv.Itoa(o.handlers), "-batch", strconv.Itoa(o.batch), "-concurrency", strconv.Itoa(o.conc))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return pgDrain{}, fmt.Errorf("worker child: %w", err)
	}
	var r pgDrain
	if err := json.Unmarshal(out, &r.workerResult); err != nil {
		return pgDrain{}, fmt.Errorf("worker child said %q: %w", out, err)
	}
	if r.Error != "" {
		return r, fmt.Errorf("worker child: %s", r.Error)
	}
	cpu1, err := processTreeCPU(pid)
	if err != nil {
		return r, err
	}
	r.serverCPU = cpu1 - cpu0
	after, err := readPGStats(ctx, db)
	if err != nil {
		return r, err
	}
	r.stats = after.minus(before)
	if statementsReport {
		if err := reportStatements(ctx, db, os.Stderr, fmt.Sprintf("the drain of %d events", o.events), o.events, "event"); err != nil {
			return r, fmt.Errorf("pg_stat_statements: %w", err)
		}
	}
	var done int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM event_queue WHERE status = 'done'").Scan(&done); err != nil {
		return r, err
	}
	if done != o.events {
		return r, fmt.Errorf("after the worker child: %d rows done, want %d", done, o.events)
	}
	return r, nil
}

// pgStats are the cumulative counters a drain's figures are differences of: the database's
// committed transactions, and the cluster's WAL records, bytes, writes and flushes.
type pgStats struct {
	commits, walRecords, walBytes, walWrites, walSyncs int64
}

func (a pgStats) minus(b pgStats) pgStats {
	return pgStats{a.commits - b.commits, a.walRecords - b.walRecords, a.walBytes - b.walBytes,
		a.walWrites - b.walWrites, a.walSyncs - b.walSyncs}
}

// readPGStats waits until db's session is the database's only one (a session's statistics are
// in once it has ended), then reads the counters. The reading itself adds a few transactions.
func readPGStats(ctx context.Context, db *sql.DB) (pgStats, error) {
	for deadline := time.Now().Add(30 * time.Second); ; {
		var others int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&others); err != nil {
			return pgStats{}, err
		}
		if others == 0 {
			break
		}
		if time.Now().After(deadline) {
			return pgStats{}, fmt.Errorf("%d other sessions still on the database after 30 s", others)
		}
		time.Sleep(10 * time.Millisecond)
	}
	var s pgStats
	err := db.QueryRowContext(ctx, `SELECT d.xact_commit, w.wal_records, w.wal_bytes, w.wal_write, w.wal_sync
		FROM pg_stat_database d, pg_stat_wal w WHERE d.datname = current_database()`).
		Scan(&s.commits, &s.walRecords, &s.walBytes, &s.walWrites, &s.walSyncs)
	return s, err
}

// processTreeCPU is the CPU time (user + system) of process pid and its live children, plus
// what its children that ended and were reaped used: for the postmaster, every backend's.
func processTreeCPU(pid int) (time.Duration, error) {
	self, err := readStat(pid)
	if err != nil {
		return 0, err
	}
	total := self.utime + self.stime + self.cutime + self.cstime
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		child, err := strconv.Atoi(filepath.Base(d))
		if err != nil || child == pid {
			continue
		}
		st, err := readStat(child)
		if err != nil || st.ppid != pid {
			continue // gone meanwhile, or not a child
		}
		total += st.utime + st.stime
	}
	return time.Duration(total) * time.Second / clockTicks, nil
}

// clockTicks is Linux's USER_HZ, the unit of /proc/<pid>/stat's times.
const clockTicks = 100

// procStat is what processTreeCPU reads of /proc/<pid>/stat.
type procStat struct {
	ppid                         int
	utime, stime, cutime, cstime int64
}

func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	return parseStat(string(b))
}

// parseStat parses a /proc/<pid>/stat line. The command name, in parentheses, may hold spaces
// and parentheses, so the fields are counted from its last ')'.
func parseStat(line string) (procStat, error) {
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("/proc stat %q: no command name", line)
	}
	f := strings.Fields(line[i+1:])
	// f[0] is field 3 (state); ppid is field 4, utime..cstime fields 14..17.
	if len(f) < 15 {
		return procStat{}, fmt.Errorf("/proc stat %q: %d fields", line, len(f)+2)
	}
	var s procStat
	var errs [5]error
	s.ppid, errs[0] = strconv.Atoi(f[1])
	s.utime, errs[1] = strconv.ParseInt(f[11], 10, 64)
	s.stime, errs[2] = strconv.ParseInt(f[12], 10, 64)
	s.cutime, errs[3] = strconv.ParseInt(f[13], 10, 64)
	s.cstime, errs[4] = strconv.ParseInt(f[14], 10, 64)
	for _, err := range errs {
		if err != nil {
			return procStat{}, fmt.Errorf("/proc stat %q: %w", line, err)
		}
	}
	return s, nil
}

// startPostgres starts the throwaway cluster the PostgreSQL rows run on; with
// BENCH_PG_STATEMENTS set it loads pg_stat_statements for the drain's statement report.
func startPostgres(ctx context.Context) (*pgtest.Server, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if os.Getenv("BENCH_PG_STATEMENTS") != "" {
		return pgtest.StartDurable(ctx, "shared_preload_libraries = 'pg_stat_statements'", "pg_stat_statements.track = all")
	}
	return pgtest.StartDurable(ctx)
}

// statementsReport is on when BENCH_PG_STATEMENTS is set: the drain and each write-path run
// with the outbox then write to stderr the statements PostgreSQL spent its time on, from
// pg_stat_statements.
var statementsReport = os.Getenv("BENCH_PG_STATEMENTS") != ""

// resetStatements installs pg_stat_statements in db's database and empties it.
func resetStatements(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, "SELECT pg_stat_statements_reset()")
	return err
}

// reportStatements writes the statements of db's database that took the most execution time
// since resetStatements, per unit of work (of over, which did units of them: "the drain of
// 20000 events", "event").
func reportStatements(ctx context.Context, db *sql.DB, w io.Writer, over string, units int, unit string) error {
	rows, err := db.QueryContext(ctx, `SELECT s.calls, s.total_exec_time, s.rows, s.wal_records, left(regexp_replace(s.query, '\s+', ' ', 'g'), 90)
		FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
		WHERE d.datname = current_database() ORDER BY s.total_exec_time DESC LIMIT 15`)
	if err != nil {
		return err
	}
	defer rows.Close()
	fmt.Fprintf(w, "pg_stat_statements over %s (execution time in the server, per %s):\n", over, unit)
	for rows.Next() {
		var (
			calls, n, wal int64
			ms            float64
			query         string
		)
		if err := rows.Scan(&calls, &ms, &n, &wal, &query); err != nil {
			return err
		}
		fmt.Fprintf(w, "  %8d calls  %7.1f µs/%s  %6.1f µs/call  %5.1f WAL records/call  %s\n",
			calls, 1000*ms/float64(max(units, 1)), unit, 1000*ms/float64(max(calls, 1)), float64(wal)/float64(max(calls, 1)), query)
	}
	return rows.Err()
}
