package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

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
	// The writes go through the store's own writer connection (its settings and checkpoints), to a
	// copy of the outbox table (same columns, defaults and indexes): the outbox itself is written
	// only through outbox.Insert.
	var write sqlite.WriteFunc
	s, err := sqlite.OpenMigrated(ctx, path, log, sqlite.WithMeasurementWriter(&write))
	if err != nil {
		return 0, 0, err
	}
	defer s.Close()
	inTx := func(fn func(*sqlx.Tx) error) error { return write(ctx, fn) }
	if err := inTx(func(tx *sqlx.Tx) error { return copyOutboxSchema(tx, "bench_queue") }); err != nil {
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
		if err := inTx(func(tx *sqlx.Tx) error {
			_, err := tx.Exec(`INSERT INTO bench_queue (event_id, event_type, payload) VALUES `+values(n, 3), args...)
			return err
		}); err != nil {
			return 0, 0, fmt.Errorf("insert: %w", err)
		}
		t1 := time.Now()
		now := time.Now().UnixMilli()
		var rowIDs []any
		if err := inTx(func(tx *sqlx.Tx) error {
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
		if err := inTx(func(tx *sqlx.Tx) error {
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

// values is "(?, ?, ?), (?, ?, ?)…": rows tuples of cols placeholders.
func values(rows, cols int) string {
	tuple := "(" + strings.Repeat("?, ", cols-1) + "?)"
	return strings.Repeat(tuple+", ", rows-1) + tuple
}

// copyOutboxSchema creates table name with event_queue's definition and indexes.
func copyOutboxSchema(tx *sqlx.Tx, name string) error {
	rows, err := tx.Query(`SELECT sql FROM sqlite_master WHERE tbl_name = 'event_queue' AND sql IS NOT NULL ORDER BY type DESC`)
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
		if _, err := tx.Exec(q); err != nil {
			return fmt.Errorf("copy outbox schema: %w", err)
		}
	}
	return nil
}
