package sqlite

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRetryEventsByRowAndEventID: ids may mix row ids and event ids (any case); only the
// dead-lettered rows among them go back to pending, due now, attempts reset.
func TestRetryEventsByRowAndEventID(t *testing.T) {
	t.Parallel()
	b := setup(t, 5)
	ids := b.enqueue(t, reindex, reindex, reindex, reindex)
	if _, err := b.s.write.Exec(`UPDATE event_queue SET status = 'dead_lettered', attempts = 5 WHERE event_id IN (?, ?, ?)`, ids[0], ids[1], ids[3]); err != nil {
		t.Fatal(err)
	}
	var rowID int64
	mustScan(t, b.s.read.QueryRow(`SELECT id FROM event_queue WHERE event_id = ?`, ids[0]), &rowID)
	b.clock.advance(time.Minute)
	n, err := b.s.RetryEvents(context.Background(), []string{strconv.FormatInt(rowID, 10), strings.ToUpper(ids[1]), ids[2]}, "")
	if err != nil || n != 2 {
		t.Fatalf("retried %d (err %v), want the 2 dead-lettered rows named", n, err)
	}
	for i, want := range []string{"pending", "pending", "pending", "dead_lettered"} {
		r := b.row(t, ids[i])
		if r.Status != want || (i < 2 && (r.Attempts != 0 || r.NextAttemptAt != b.clock.now().UnixMilli())) {
			t.Errorf("row %d: %+v, want %s (retried rows due now with attempts 0)", i, r, want)
		}
	}
	ev, ledger, err := b.s.ShowEvent(context.Background(), ids[3])
	if err != nil || ev.Status != "dead_lettered" || ev.Attempts != 5 || ev.Payload == "" || len(ledger) != 0 {
		t.Fatalf("show: %+v %v %v", ev, ledger, err)
	}
	list, err := b.s.ListEvents(context.Background(), "pending", "", 10)
	if err != nil || len(list) != 3 || list[0].EventID != ids[2] || list[0].Payload != "" {
		t.Fatalf("list pending: %+v %v", list, err)
	}
}
