package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
)

// chaosRecorder is the name of the catch-all handler `make chaos` adds so that every event type
// is checked, handled or not.
const chaosRecorder = "chaos-recorder"

// chaosRecording wraps every handler so each execution is recorded in chaos_recordings (event,
// handler, pid, start and end in µs on the worker's clock), and lists the handler registry in
// chaos_handlers; the chaos harness checks both against the outbox and the ledger. Only
// CHAOS_RECORD=1 enables it. Each execution takes a few milliseconds, so a SIGSTOP or SIGKILL
// often lands inside one.
func chaosRecording(ctx context.Context, driver, dsn string, now func() time.Time, hs []delivery.Handler) ([]delivery.Handler, func(), error) {
	db, err := sqlx.Open(driver, dsn)
	if err != nil {
		return nil, nil, err
	}
	hs = append(hs, delivery.Handler{Name: chaosRecorder, Types: domain.EventTypes(),
		Handle: func(context.Context, delivery.Envelope) error { return nil }})
	if err := prepareRecording(ctx, db, hs); err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("chaos recording: %w", err)
	}
	pid := os.Getpid()
	wrapped := make([]delivery.Handler, len(hs))
	for i, h := range hs {
		inner := h.Handle
		h.Handle = func(ctx context.Context, e delivery.Envelope) error {
			start := now()
			if err := inner(ctx, e); err != nil {
				return err
			}
			time.Sleep(time.Duration(2+rand.IntN(15)) * time.Millisecond)
			_, err := db.ExecContext(ctx, db.Rebind(`INSERT INTO chaos_recordings VALUES (?, ?, ?, ?, ?)`),
				e.EventID, h.Name, pid, start.UnixMicro(), now().UnixMicro())
			return err
		}
		wrapped[i] = h
	}
	return wrapped, func() { db.Close() }, nil
}

// prepareRecording creates the recorder's tables and lists the handlers, trying again for up to
// postgres.StartWait: make chaos restarts PostgreSQL, which may be down while a worker starts, and
// PostgreSQL's IF NOT EXISTS takes no lock, so of workers starting at once all but one may fail
// on a catalogue index (23505) or find the relation there (42P07) until they try again.
func prepareRecording(ctx context.Context, db *sqlx.DB, hs []delivery.Handler) error {
	prepare := func() error {
		for _, q := range []string{
			// BIGINT: times in µs since 1970 overflow PostgreSQL's INTEGER (SQLite reads BIGINT
			// as its INTEGER).
			`CREATE TABLE IF NOT EXISTS chaos_recordings (event_id TEXT, handler TEXT, pid INTEGER, started_us BIGINT, ended_us BIGINT)`,
			// The harness joins executions by (event, handler); without this its checks are quadratic.
			`CREATE INDEX IF NOT EXISTS chaos_recordings_key ON chaos_recordings (event_id, handler)`,
			`CREATE TABLE IF NOT EXISTS chaos_handlers (handler TEXT, event_type TEXT, PRIMARY KEY (handler, event_type))`,
		} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		for _, h := range hs {
			for _, t := range h.Types {
				if _, err := db.ExecContext(ctx, db.Rebind(`INSERT INTO chaos_handlers VALUES (?, ?) ON CONFLICT DO NOTHING`), h.Name, t); err != nil {
					return err
				}
			}
		}
		return nil
	}
	deadline := time.Now().Add(postgres.StartWait)
	for {
		err := prepare()
		if err == nil || ctx.Err() != nil || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// brokenLedger acquires every claim and remembers nothing: CHAOS_BREAK_LEDGER=1 uses it to show
// that the chaos harness catches a build without dedup.
type brokenLedger struct{}

// Renew holds everything, as Claim acquires everything.
func (brokenLedger) Renew(_ context.Context, _ time.Time, claims []delivery.Mark) ([]bool, error) {
	held := make([]bool, len(claims))
	for i := range held {
		held[i] = true
	}
	return held, nil
}

func (brokenLedger) Claim(_ context.Context, now time.Time, _ time.Duration, keys []delivery.Key) ([]delivery.Claim, error) {
	cs := make([]delivery.Claim, len(keys))
	for i, k := range keys {
		cs[i] = delivery.Claim{Key: k, State: delivery.Acquired, Token: now.UnixMilli()}
	}
	return cs, nil
}
