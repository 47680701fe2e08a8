package sqlite

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/outbox"
)

// TestForeignRowsCarryTheirRowID: a claimed foreign writer's row (no event id) carries its row
// id on the message, so a handler can key it by its row; and the queue's own dead-letter line
// for it names the row, as the engine's lines do.
func TestForeignRowsCarryTheirRowID(t *testing.T) {
	t.Parallel()
	var logs lockedBuffer
	clock := &fakeClock{t: time.Now()}
	s := newStore(t, WithClock(clock.now))
	q := s.Queue(outbox.QueueConfig{MaxAttempts: 1, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	t.Cleanup(func() { q.Close() })
	for range 2 {
		if _, err := s.write.Exec(`INSERT INTO event_queue (event_type, payload) VALUES ('SearchReindexRequested', '{"type":"SearchReindexRequested"}')`); err != nil {
			t.Fatal(err)
		}
	}
	clock.set(time.Now()) // a foreign row is stamped by SQLite's wall clock
	ctx := context.Background()
	msgs, err := q.Claim(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[0].RowID == 0 || msgs[0].RowID == msgs[1].RowID {
		t.Fatalf("claimed %+v, want two messages with distinct row ids", msgs)
	}
	results := make([]delivery.Result, len(msgs))
	for i, m := range msgs {
		results[i] = delivery.Result{Msg: m, Kind: delivery.Retry, Err: errors.New("connection reset")}
	}
	if err := q.Settle(ctx, results); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	for _, m := range msgs {
		found := false
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, "max attempts reached") && strings.Contains(line, `"row_id":`+strconv.FormatInt(m.RowID, 10)) {
				found = true
			}
		}
		if !found {
			t.Errorf("no dead-letter line names row %d:\n%s", m.RowID, out)
		}
	}
}
