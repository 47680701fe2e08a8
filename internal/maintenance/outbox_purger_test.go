package maintenance

import (
	"context"
	"testing"
	"time"
)

// TestOutboxPurgerDeletesOldDoneRowsOnly: done rows older than DoneEventRetention go; younger done
// rows and old rows in any other status stay. The cut-off is the job's injected clock.
func TestOutboxPurgerDeletesOldDoneRowsOnly(t *testing.T) {
	t.Parallel()
	b := setup(t)
	now := b.now
	for _, r := range []struct {
		id, status string
		age        time.Duration
	}{
		{"old-done", "done", DoneEventRetention + time.Hour},
		{"young-done", "done", DoneEventRetention - time.Hour},
		{"old-pending", "pending", DoneEventRetention + time.Hour},
		{"old-dead", "dead_lettered", DoneEventRetention + time.Hour},
	} {
		b.exec(t, `INSERT INTO event_queue (event_id, event_type, payload, status, created_at) VALUES (?, 'X', '{}', ?, ?)`,
			r.id, r.status, now.Add(-r.age).UnixMilli())
	}
	if err := NewOutboxPurger(b.store, b.cfg).RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := b.count(t, `SELECT count(*) FROM event_queue WHERE event_id = 'old-done'`); n != 0 {
		t.Error("an old done row was kept")
	}
	if n := b.count(t, `SELECT count(*) FROM event_queue`); n != 3 {
		t.Errorf("%d rows left, want the 3 that are young or not done", n)
	}
}
