package main

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/domain"
)

// sqliteLimit measures, on this machine and schema, how fast SQLite does the minimum writes one
// event needs when they are batched as well as they can be: the insert, the claim, a ledger claim
// and a ledger done per handler, and the row's done mark. It returns the rate of the whole
// sequence and of its delivery part (everything but the insert), so each benchmark figure can be
// shown as a fraction of the matching limit.
func sqliteLimit(ctx context.Context, dir string, o options, log *slog.Logger) (full, delivery float64, err error) {
	path := filepath.Join(dir, "limit.db")
	s, err := sqlite.OpenMigrated(ctx, path, log)
	if err != nil {
		return 0, 0, err
	}
	s.Close()
	// The connection is set up as the store's writer is: cached prepared statements, and WAL
	// checkpoints left to a second connection every 100 ms instead of run inside commits.
	dsn := "file:" + path + "?_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=10000&_stmt_cache_size=64"
	db, err := sql.Open("sqlite3", dsn+"&_txlock=immediate")
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, "PRAGMA wal_autocheckpoint = 0"); err != nil {
		return 0, 0, err
	}
	stop := checkpointEvery(dsn, db, 100*time.Millisecond)
	defer stop()
	// The writes go to a copy of the outbox table (same columns, defaults and indexes): the
	// outbox itself is written only through sqlite.EnqueueEvents.
	if err := copyOutboxSchema(db, "bench_queue"); err != nil {
		return 0, 0, err
	}

	const batch = 100
	payload, err := domain.Encode(domain.PosterSynced{MovieID: uuid.New()})
	if err != nil {
		return 0, 0, err
	}
	// A rate needs no more than this many events; a million-event backlog run would otherwise
	// spend minutes measuring the limit.
	events := min(o.events, limitEvents)
	var insertTime, deliverTime time.Duration
	for done := 0; done < events; done += batch {
		n := min(batch, events-done)
		ids := make([]string, n)
		args := make([]any, 0, 3*n)
		for i := range ids {
			ids[i] = uuid.Must(uuid.NewV7()).String()
			args = append(args, ids[i], "PosterSynced", payload)
		}
		t0 := time.Now()
		if err := inTx(db, func(tx *sql.Tx) error {
			_, err := tx.Exec(`INSERT INTO bench_queue (event_id, event_type, payload) VALUES `+values(n, 3), args...)
			return err
		}); err != nil {
			return 0, 0, fmt.Errorf("insert: %w", err)
		}
		t1 := time.Now()
		now := time.Now().UnixMilli()
		var rowIDs []any
		if err := inTx(db, func(tx *sql.Tx) error {
			rows, err := tx.Query(`UPDATE bench_queue SET status = 'processing', claimed_at = ?1 WHERE id IN (
				SELECT id FROM bench_queue WHERE status = 'pending' AND next_attempt_at <= ?1 ORDER BY next_attempt_at, id LIMIT CAST(?2 AS INTEGER))
				RETURNING id, event_id, event_type, payload, attempts`, now+1000, n)
			if err != nil {
				return err
			}
			for rows.Next() {
				var id int64
				var eid, typ, p string
				var attempts int
				if err := rows.Scan(&id, &eid, &typ, &p, &attempts); err != nil {
					rows.Close()
					return err
				}
				rowIDs = append(rowIDs, id)
			}
			rows.Close()
			largs := make([]any, 0, 3*n*o.handlers)
			for _, id := range ids {
				for h := range o.handlers {
					largs = append(largs, id, fmt.Sprintf("noop-%d", h), now)
				}
			}
			_, err = tx.Exec(`INSERT INTO processed_events (event_id, handler, status, started_at) VALUES `+
				strings.Repeat("(?, ?, 'in_progress', ?),", n*o.handlers-1)+"(?, ?, 'in_progress', ?)", largs...)
			return err
		}); err != nil {
			return 0, 0, fmt.Errorf("claim: %w", err)
		}
		if err := inTx(db, func(tx *sql.Tx) error {
			dargs := []any{now}
			for _, id := range ids {
				for h := range o.handlers {
					dargs = append(dargs, id, fmt.Sprintf("noop-%d", h), now)
				}
			}
			if _, err := tx.Exec(`UPDATE processed_events SET status = 'done', processed_at = ? FROM (VALUES `+values(n*o.handlers, 3)+
				`) AS v WHERE processed_events.event_id = v.column1 AND processed_events.handler = v.column2 AND processed_events.started_at = v.column3`, dargs...); err != nil {
				return err
			}
			_, err := tx.Exec(`UPDATE bench_queue SET status = 'done', claimed_at = NULL WHERE id IN (?`+strings.Repeat(", ?", len(rowIDs)-1)+`)`, rowIDs...)
			return err
		}); err != nil {
			return 0, 0, fmt.Errorf("settle: %w", err)
		}
		insertTime += t1.Sub(t0)
		deliverTime += time.Since(t1)
	}
	ev := float64(events)
	return ev / (insertTime + deliverTime).Seconds(), ev / deliverTime.Seconds(), nil
}

// limitEvents caps the events the limit is measured with.
const limitEvents = 50_000

func inTx(db *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// values is "(?, ?, ?), (?, ?, ?)…": rows tuples of cols placeholders.
func values(rows, cols int) string {
	tuple := "(" + strings.Repeat("?, ", cols-1) + "?)"
	return strings.Repeat(tuple+", ", rows-1) + tuple
}

// copyOutboxSchema creates table name with event_queue's definition and indexes.
func copyOutboxSchema(db *sql.DB, name string) error {
	rows, err := db.Query(`SELECT sql FROM sqlite_master WHERE tbl_name = 'event_queue' AND sql IS NOT NULL ORDER BY type DESC`)
	if err != nil {
		return err
	}
	var ddl []string
	for rows.Next() {
		var q string
		if err := rows.Scan(&q); err != nil {
			rows.Close()
			return err
		}
		ddl = append(ddl, q)
	}
	rows.Close()
	for _, q := range ddl {
		q = strings.ReplaceAll(q, "idx_event_queue", "idx_"+name)
		q = strings.Replace(q, `"event_queue"`, name, 1)
		q = strings.Replace(q, "event_queue", name, 1)
		if _, err := db.Exec(q); err != nil {
			return fmt.Errorf("copy outbox schema: %w", err)
		}
	}
	return nil
}

// checkpointEvery runs a PASSIVE checkpoint of the database every d from a connection of its own
// until the returned func is called, and, as the store's checkpointer does, a second one on the
// writer once the WAL passes 1,000 frames so that it starts over.
func checkpointEvery(dsn string, writer *sql.DB, d time.Duration) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		db, err := sql.Open("sqlite3", dsn)
		if err != nil {
			return
		}
		defer db.Close()
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				var busy, frames, copied int
				err := db.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied)
				if err == nil && frames >= 1000 {
					_, _ = writer.Exec("PRAGMA wal_checkpoint(PASSIVE)")
				}
			case <-done:
				return
			}
		}
	}()
	return func() { close(done); <-finished }
}
