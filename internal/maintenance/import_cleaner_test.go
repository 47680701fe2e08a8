package maintenance

import (
	"context"
	"testing"
	"time"

	"moviesdiary/internal/adapters/sqlite"
)

var _ Imports = (*sqlite.Store)(nil)

// TestImportCleanerDeletesExpiredSessions: a session expired at the job's now goes with its
// rows, a live one stays with its rows.
func TestImportCleanerDeletesExpiredSessions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.exec(t, `INSERT INTO users (id, username, email, password_hash) VALUES ('u', 'u', 'u@example.test', 'x')`)
	for id, expires := range map[string]time.Time{"expired": b.now.Add(-time.Second), "live": b.now.Add(time.Hour)} {
		b.exec(t, `INSERT INTO import_sessions (id, user_id, format, kind, columns, created_at, expires_at, complete)
			VALUES (?, 'u', 'csv', 'custom', '["a"]', ?, ?, 1)`, id, b.now.Add(-24*time.Hour).UnixMilli(), expires.UnixMilli())
		for i := range 3 {
			b.exec(t, `INSERT INTO import_rows (session_id, idx, cells) VALUES (?, ?, '["x"]')`, id, i)
		}
	}
	if err := NewImportCleaner(b.store, b.cfg).RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := b.count(t, `SELECT count(*) FROM import_sessions WHERE id = 'live'`); n != 1 {
		t.Errorf("live sessions = %d", n)
	}
	if n := b.count(t, `SELECT count(*) FROM import_sessions`); n != 1 {
		t.Errorf("sessions = %d, want 1", n)
	}
	if n := b.count(t, `SELECT count(*) FROM import_rows WHERE session_id = 'live'`); n != 3 {
		t.Errorf("live rows = %d, want 3", n)
	}
	if n := b.count(t, `SELECT count(*) FROM import_rows`); n != 3 {
		t.Errorf("rows = %d, want 3: the expired session's went with it", n)
	}
}
