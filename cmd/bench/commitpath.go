package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// commitWriters is how many goroutines the commit path runs, as River's write path does.
const commitWriters = 16

// commitWriter runs fn in one of a store's own write transactions; enqueue adds events to it.
type commitWriter func(ctx context.Context, fn func(tx *sqlx.Tx, enqueue func(...domain.Event) error) error) error

// commitPath measures what bench-peers' River write path measures, on a store's own write
// transactions: commitWriters goroutines each committing transactions of one review row in a
// table of the benchmark's own (River's columns) and one event, for 5×d after d untimed (the
// pool opens its connections): commits/s.
func commitPath(ctx context.Context, write commitWriter, createTable string, d time.Duration, payload int) (float64, error) {
	if err := write(ctx, func(tx *sqlx.Tx, _ func(...domain.Event) error) error {
		_, err := tx.ExecContext(ctx, createTable)
		return err
	}); err != nil {
		return 0, fmt.Errorf("create the review table: %w", err)
	}
	runCtx, cancel := context.WithTimeout(ctx, 6*d)
	defer cancel()
	var (
		commits  atomic.Int64
		firstErr error
		errOnce  sync.Once
		wg       sync.WaitGroup
	)
	for w := range commitWriters {
		wg.Go(func() {
			for i := 0; runCtx.Err() == nil; i++ {
				err := write(ctx, func(tx *sqlx.Tx, enqueue func(...domain.Event) error) error {
					if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO bench_review (user_id, movie_id, rating, body) VALUES (?, ?, ?, ?)`),
						w, i, 1+i%10, "A quiet film that stays with you."); err != nil {
						return err
					}
					return enqueue(benchEvent(uuid.New(), payload))
				})
				if err != nil {
					errOnce.Do(func() { firstErr = err })
					cancel()
					return
				}
				commits.Add(1)
			}
		})
	}
	before, start := warmedUp(runCtx, d, &commits)
	wg.Wait()
	if firstErr != nil {
		return 0, firstErr
	}
	return float64(commits.Load()-before) / time.Since(start).Seconds(), nil
}

// sqliteCommitPath is commitPath on a fresh SQLite store (its default synchronous setting),
// through the store's own writer connection and outbox.Insert.
func sqliteCommitPath(ctx context.Context, dir string, o options, log *slog.Logger) (float64, error) {
	var write sqlite.WriteFunc
	s, err := sqlite.OpenMigrated(ctx, filepath.Join(dir, "commit.db"), log, sqlite.WithMeasurementWriter(&write))
	if err != nil {
		return 0, err
	}
	defer s.Close()
	w := func(ctx context.Context, fn func(*sqlx.Tx, func(...domain.Event) error) error) error {
		return write(ctx, func(tx *sqlx.Tx) error {
			return fn(tx, func(events ...domain.Event) error { return outbox.Insert(ctx, tx, time.Now(), events...) })
		})
	}
	return commitPath(ctx, w, `CREATE TABLE bench_review (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL,
		movie_id INTEGER NOT NULL, rating INTEGER NOT NULL, body TEXT NOT NULL)`, o.writeD, o.payload)
}

// pgCommitPath is commitPath on a fresh PostgreSQL database with o.pgCommit, through the
// store's own write transactions (the commit wakes the queues, as every enqueuing write does).
func pgCommitPath(ctx context.Context, o options, log *slog.Logger) (float64, error) {
	url, err := pgDatabase(ctx, o, "commit")
	if err != nil {
		return 0, err
	}
	var write postgres.WriteFunc
	s, err := postgres.OpenMigrated(ctx, url, log, postgres.WithMeasurementWriter(&write))
	if err != nil {
		return 0, err
	}
	defer s.Close()
	return commitPath(ctx, commitWriter(write), `CREATE TABLE bench_review (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		user_id bigint NOT NULL, movie_id bigint NOT NULL, rating int NOT NULL, body text NOT NULL)`, o.writeD, o.payload)
}

// commitScenarios runs commit and pg-commit, those asked for, adding their rows and figures
// (commit, pg_commit with synchronous_commit=on).
func commitScenarios(ctx context.Context, dir string, o options, log *slog.Logger, figures map[string]float64, add func(scenario, format string, args ...any)) error {
	load := fmt.Sprintf("%d goroutines, %s after %s untimed", commitWriters, 5*o.writeD, o.writeD)
	if o.wants("commit") {
		r, err := sqliteCommitPath(ctx, dir, o, log)
		if err != nil {
			return fmt.Errorf("commit path: %w", err)
		}
		figures["commit"] = r
		add("commit: a domain row + its event in one transaction", "%.0f commits/s (%s)", r, load)
	}
	if o.pg == nil || !o.wants("pg-commit") {
		return nil
	}
	for _, c := range o.pgCommits {
		o := o
		o.pgCommit = c
		r, err := pgCommitPath(ctx, o, log)
		if err != nil {
			return fmt.Errorf("pg commit path (synchronous_commit=%s): %w", c, err)
		}
		ratio := ""
		if base := figures["commit"]; base > 0 {
			ratio = fmt.Sprintf("; %.2f× SQLite's", r/base)
		}
		if c == figureCommit {
			figures[pgFigure("commit")] = r
		}
		add("pg: commit: a domain row + its event in one transaction, synchronous_commit="+c, "%.0f commits/s (%s)%s", r, load, ratio)
	}
	return nil
}
