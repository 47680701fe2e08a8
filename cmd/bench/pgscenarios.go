package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/app"
	"moviesdiary/internal/domain"
)

// pgScenarios are the PostgreSQL twins of db, latency, idle, write and commit, and pg-workers
// (one worker's drain against two's), run on one throwaway cluster with PostgreSQL's durable
// defaults.
var pgScenarios = []string{"pg-db", "pg-workers", "pg-latency", "pg-idle", "pg-write", "pg-commit"}

func (o options) wantsPostgres() bool {
	for _, s := range pgScenarios {
		if o.wants(s) {
			return true
		}
	}
	return false
}

// sqliteRun are SQLite's figures from the same run, which the PostgreSQL rows are divided by:
// drain rates by synchronous setting and the latency quantiles.
type sqliteRun struct {
	drains  map[sqlite.Synchronous]float64
	figures map[string]float64 // latency_p50_ms, idle_p99_ms…, as written for bench-peers
}

// figureCommit is the synchronous_commit setting whose PostgreSQL figures -figures writes, for
// bench-peers to compare with River on PostgreSQL, which runs at PostgreSQL's default.
const figureCommit = "on"

// pgFigure is the -figures key of a PostgreSQL figure: SQLite's key with a pg_ prefix.
func pgFigure(key string) string { return "pg_" + key }

// vsSQLite is "; ×r SQLite's synchronous=s" for each SQLite rate measured (nothing if none was).
func vsSQLite(rate float64, sqliteRates map[sqlite.Synchronous]float64, syncs []sqlite.Synchronous) string {
	var parts []string
	for _, s := range syncs {
		if r, ok := sqliteRates[s]; ok && r > 0 {
			parts = append(parts, fmt.Sprintf("%.2f× SQLite synchronous=%s", rate/r, s))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, ", ")
}

// postgresScenarios runs pg-db, pg-latency and pg-idle, those asked for, on o.pg with each
// synchronous_commit setting and adds their rows; the figures with synchronous_commit=on go into
// figures under pgFigure keys (pg_drain, pg_latency_p50_ms…).
func postgresScenarios(ctx context.Context, dir string, o options, log *slog.Logger, base sqliteRun, figures map[string]float64, add func(scenario, format string, args ...any)) error {
	tag := func(c string) string { return ", synchronous_commit=" + c }
	if o.wants("pg-db") {
		for _, c := range o.pgCommits {
			o := o
			o.pgCommit = c
			r, err := pgBacklogInChild(ctx, o, log)
			if err != nil {
				return fmt.Errorf("drain (synchronous_commit=%s): %w", c, err)
			}
			n := float64(o.events)
			rate := n / r.Elapsed.Seconds()
			if c == figureCommit {
				figures[pgFigure("drain")] = rate
			}
			add(fmt.Sprintf("pg: drain %d-event backlog%s", o.events, tag(c)),
				"%.0f events/s (%s; worker process %.0f µs CPU/event, PostgreSQL %.0f µs CPU/event)%s",
				rate, r.Elapsed.Round(time.Millisecond), float64(r.CPU.Microseconds())/n, float64(r.serverCPU.Microseconds())/n,
				vsSQLite(rate, base.drains, o.syncs))
			add("pg: per event in that drain"+tag(c), "%.2f commits, %.2f WAL flushes, %.2f WAL writes, %.1f WAL records, %.0f WAL bytes",
				float64(r.stats.commits)/n, float64(r.stats.walSyncs)/n, float64(r.stats.walWrites)/n,
				float64(r.stats.walRecords)/n, float64(r.stats.walBytes)/n)
			add("pg: worker peak RSS draining it"+tag(c), "%.1f MiB", float64(r.PeakRSS)/1024)
		}
	}
	if o.wants("pg-workers") {
		one, two, err := pgWorkers(ctx, o, log)
		if err != nil {
			return fmt.Errorf("pg-workers: %w", err)
		}
		var ratios []float64
		for i := range one {
			ratios = append(ratios, two[i]/one[i])
		}
		add(fmt.Sprintf("pg: drain %d-event backlog, 1 worker then 2%s", o.events, tag(o.pgCommits[0])),
			"1 worker %s events/s, 2 workers %s events/s: %.2f× (median ratio of %d alternated pairs; target 1.5×)",
			rates(one), rates(two), median(ratios), len(ratios))
	}
	for _, l := range []struct {
		scenario, name, key string
		rate                int
		d                   time.Duration
		producers           int
	}{
		// Eight producers, not SQLite's two: a durable commit waits for its WAL flush (milliseconds
		// on this disk), so two producers could not offer the rate; the latency is counted from
		// each commit's return either way.
		{"pg-latency", fmt.Sprintf("commit→handler at %d events/s", o.loadRate), "latency", o.loadRate, o.duration, 8},
		{"pg-idle", "commit→handler when idle (1 event/100 ms)", "idle", 10, time.Duration(o.idle) * 100 * time.Millisecond, 1},
	} {
		if !o.wants(l.scenario) {
			continue
		}
		for _, c := range o.pgCommits {
			o := o
			o.pgCommit = c
			s, err := offerLoad(ctx, dir, l.scenario, o, log, newPGPipeline, l.rate, l.d, l.producers)
			if err != nil {
				return fmt.Errorf("%s (synchronous_commit=%s): %w", l.scenario, c, err)
			}
			p50, p99 := quantileMS(s.latencies, 0.5), quantileMS(s.latencies, 0.99)
			if c == figureCommit {
				figures[pgFigure(l.key+"_p50_ms")], figures[pgFigure(l.key+"_p99_ms")] = p50, p99
			}
			ratio := ""
			if b50, b99 := base.figures[l.key+"_p50_ms"], base.figures[l.key+"_p99_ms"]; b50 > 0 && b99 > 0 {
				ratio = fmt.Sprintf("; p50 %.2f×, p99 %.2f× SQLite's", p50/b50, p99/b99)
			}
			add("pg: "+l.name+tag(c), "%s; %.0f events/s handled%s", percentiles(s.latencies), s.handled, ratio)
		}
	}
	return nil
}

// pgWriteModes are the write path's PostgreSQL settings, a fresh database on o.pg per run.
func pgWriteModes(o options, log *slog.Logger) []writeMode {
	var out []writeMode
	for _, c := range o.pgCommits {
		o := o
		o.pgCommit = c
		out = append(out, writeMode{store: "PostgreSQL", prefix: "pg: write path", label: "synchronous_commit=" + c, short: c,
			open: func(ctx context.Context, name string, outbox bool) (app.Store, func() error, error) {
				url, err := pgDatabase(ctx, o, name)
				if err != nil {
					return nil, nil, err
				}
				var opts []postgres.Option
				if !outbox {
					opts = append(opts, postgres.WithEnqueue(func(context.Context, *sqlx.Tx, time.Time, ...domain.Event) error { return nil }))
				}
				s, err := postgres.OpenMigrated(ctx, url, log, opts...)
				if err != nil {
					return nil, nil, err
				}
				if statementsReport && outbox {
					return reportingStatements(ctx, url, s)
				}
				return s, s.Close, nil
			}})
	}
	return out
}

// reportingStatements empties pg_stat_statements for the write-path database at url, and
// returns s with a close that first reports the statements per review logged.
func reportingStatements(ctx context.Context, url string, s *postgres.Store) (app.Store, func() error, error) {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return nil, nil, err
	}
	if err := resetStatements(ctx, db); err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("pg_stat_statements: %w", err)
	}
	return s, func() error {
		defer db.Close()
		var reviews int
		if err := db.QueryRowContext(ctx, `SELECT coalesce(sum(calls), 0) FROM pg_stat_statements
			WHERE query LIKE 'INSERT INTO reviews %' AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&reviews); err != nil {
			return errors.Join(fmt.Errorf("pg_stat_statements: %w", err), s.Close())
		}
		err := reportStatements(ctx, db, os.Stderr, fmt.Sprintf("a write-path run (%d reviews)", reviews), reviews, "review")
		return errors.Join(err, s.Close())
	}, nil
}

// rates is "r1 / r2 / …" of events/s figures.
func rates(v []float64) string {
	parts := make([]string, len(v))
	for i, r := range v {
		parts[i] = fmt.Sprintf("%.0f", r)
	}
	return strings.Join(parts, " / ")
}
