package maintenance

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
)

// TestWrapUpReaperFailsStuckAndDeletesOldFailed: unfinished wrap-ups older than StuckWrapUpAfter
// become Failed, Failed ones older than FailedWrapUpKeep are deleted, everything else stays.
func TestWrapUpReaperFailsStuckAndDeletesOldFailed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rows := []struct {
		name, status string
		age          time.Duration
		want         string // status after the run; "" for deleted
	}{
		{"old failed", "Failed", FailedWrapUpKeep + time.Hour, ""},
		{"young failed", "Failed", FailedWrapUpKeep - time.Hour, "Failed"},
		{"stuck generating", "Generating", StuckWrapUpAfter + time.Hour, "Failed"},
		{"stuck pending", "Pending", StuckWrapUpAfter + time.Hour, "Failed"},
		{"running generating", "Generating", StuckWrapUpAfter - time.Hour, "Generating"},
		{"old ready", "Ready", 60 * 24 * time.Hour, "Ready"},
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = uuid.NewString()
		// Distinct ranges: the live-record index allows one live wrap-up per range.
		b.exec(t, `INSERT INTO wrapups (id, status, start_date, end_date, created_at) VALUES (?, ?, ?, '2025-12-31', ?)`,
			ids[i], r.status, time.Date(2025, 1, 1+i, 0, 0, 0, 0, time.UTC).Format("2006-01-02"),
			b.now.Add(-r.age).UTC().Format("2006-01-02T15:04:05.000Z"))
	}
	if err := NewWrapUpReaper(b.store, b.cfg).RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		var got string
		_ = b.db.QueryRow(`SELECT status FROM wrapups WHERE id = ?`, ids[i]).Scan(&got)
		if got != r.want {
			t.Errorf("%s: status %q after the run, want %q", r.name, got, r.want)
		}
	}
}
