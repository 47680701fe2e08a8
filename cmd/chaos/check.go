package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// expectedPairs counts the (event, handler) executions the registry implies for the outbox.
const expectedPairs = `SELECT count(*) FROM event_queue q JOIN chaos_handlers h ON h.event_type = q.event_type`

// quiesce waits until nothing is pending, processing or relayed (handed to NATS and waiting for
// its outcome) and every expected execution is recorded.
func quiesce(ctx context.Context, db *sql.DB, backend string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		var open, want, done int
		err := db.QueryRowContext(ctx, `SELECT count(*) FROM event_queue WHERE status IN ('pending', 'processing', 'relayed')`).Scan(&open)
		if err == nil {
			err = db.QueryRowContext(ctx, expectedPairs).Scan(&want)
		}
		if err == nil {
			err = db.QueryRowContext(ctx, `SELECT count(DISTINCT event_id || '/' || handler) FROM chaos_recordings`).Scan(&done)
		}
		if err == nil && open == 0 && done >= want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no quiescence after %s: %d rows pending, processing or relayed, %d of %d executions recorded (err %v)", limit, open, done, want, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// check runs the invariants and returns the number of events and one line per violation kind.
// rowKey is the store's row identity (rowid, ctid), which tells apart two recordings of one
// (event, handler); acked is the reviews whose creation a client saw succeed.
func check(db *sql.DB, rowKey string, acked []string) (int, []string, error) {
	var events int
	if err := db.QueryRow(`SELECT count(*) FROM event_queue`).Scan(&events); err != nil {
		return 0, nil, err
	}
	checks := []struct {
		what  string
		query string
	}{
		{"events not done", `SELECT count(*) FROM event_queue WHERE status != 'done'`},
		{"events dead-lettered", `SELECT count(*) FROM event_queue WHERE status = 'dead_lettered'`},
		{"(event, handler) pairs that never ran", `SELECT count(*) FROM event_queue q JOIN chaos_handlers h ON h.event_type = q.event_type
			WHERE NOT EXISTS (SELECT 1 FROM chaos_recordings r WHERE r.event_id = q.event_id AND r.handler = h.handler)`},
		{"overlapping executions of one (event, handler)", `SELECT count(*) FROM chaos_recordings a JOIN chaos_recordings b
			ON a.event_id = b.event_id AND a.handler = b.handler AND a.` + rowKey + ` < b.` + rowKey + `
			WHERE a.started_us < b.ended_us AND b.started_us < a.ended_us`},
		{"executions that began after the ledger said done", `SELECT count(*) FROM chaos_recordings r JOIN processed_events p
			ON p.event_id = r.event_id AND p.handler = r.handler WHERE p.status = 'done' AND r.started_us > p.processed_at * 1000`},
		{"(event, handler) pairs the ledger does not have done", `SELECT count(*) FROM event_queue q JOIN chaos_handlers h ON h.event_type = q.event_type
			WHERE NOT EXISTS (SELECT 1 FROM processed_events p WHERE p.event_id = q.event_id AND p.handler = h.handler AND p.status = 'done')`},
		{"ledger claims left in progress", `SELECT count(*) FROM processed_events WHERE status = 'in_progress'`},
		{"ledger rows for events not in the queue", `SELECT count(*) FROM processed_events p
			WHERE NOT EXISTS (SELECT 1 FROM event_queue q WHERE q.event_id = p.event_id)`},
	}
	var details []string
	for _, c := range checks {
		var n int
		if err := db.QueryRow(c.query).Scan(&n); err != nil {
			return events, nil, fmt.Errorf("check %q: %w", c.what, err)
		}
		if n > 0 {
			details = append(details, fmt.Sprintf("%d %s", n, c.what))
		}
	}
	lost, err := unannounced(db, acked)
	if err != nil {
		return events, nil, err
	}
	if lost > 0 {
		details = append(details, fmt.Sprintf("%d reviews acknowledged to the client without a ReviewLogged in the outbox", lost))
	}
	return events, details, nil
}

// unannounced counts the acknowledged reviews that have no ReviewLogged event: a write the
// client saw succeed whose event was lost (a commit that did not survive a crash, say).
func unannounced(db *sql.DB, acked []string) (int, error) {
	rows, err := db.Query(`SELECT payload FROM event_queue WHERE event_type = 'ReviewLogged'`)
	if err != nil {
		return 0, fmt.Errorf("read the ReviewLogged events: %w", err)
	}
	defer rows.Close()
	logged := map[string]bool{}
	for rows.Next() {
		var payload string
		if err := rows.Scan(&payload); err != nil {
			return 0, err
		}
		var e struct {
			Data struct {
				ReviewID string `json:"review_id"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(payload), &e); err != nil {
			return 0, fmt.Errorf("decode a ReviewLogged payload: %w", err)
		}
		logged[e.Data.ReviewID] = true
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	lost := 0
	for _, id := range acked {
		if !logged[id] {
			lost++
		}
	}
	return lost, nil
}
