package maintenance

import (
	"context"
	"testing"
	"time"
)

// TestSessionPrunerDeletesExpiredSessions: a session expired at the job's now goes, a live one
// stays.
func TestSessionPrunerDeletesExpiredSessions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.exec(t, `INSERT INTO users (id, username, email, password_hash) VALUES ('u', 'u', 'u@example.test', 'x')`)
	for hash, expires := range map[string]time.Time{"expired": b.now.Add(-time.Second), "live": b.now.Add(time.Hour)} {
		b.exec(t, `INSERT INTO refresh_sessions (token_hash, user_id, expires_at, created_at) VALUES (?, 'u', ?, ?)`,
			hash, expires.UnixMilli(), b.now.Add(-24*time.Hour).UnixMilli())
	}
	if err := NewSessionPruner(b.store, b.cfg).RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	var left []string
	rows, err := b.db.Query(`SELECT token_hash FROM refresh_sessions`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var h string
		_ = rows.Scan(&h)
		left = append(left, h)
	}
	if len(left) != 1 || left[0] != "live" {
		t.Errorf("sessions left: %v, want [live]", left)
	}
}
