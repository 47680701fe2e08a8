package maintenance

import (
	"context"
	"slices"
	"testing"
	"time"

	"moviesdiary/internal/adapters/sqlite"
)

var _ WatchEvents = (*sqlite.Store)(nil)

// TestWatchEventPurgerKeepsOnlyWhatIsInRetention: closed events go a week after closing,
// pending ones 90 days after the watch; younger ones of either kind stay.
func TestWatchEventPurgerKeepsOnlyWhatIsInRetention(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.exec(t, `INSERT INTO users (id, username, email, password_hash) VALUES ('u', 'u', 'u@example.test', 'x')`)
	ms := func(d time.Duration) int64 { return b.now.Add(-d).UnixMilli() }
	day := 24 * time.Hour
	rows := []struct {
		id, status      string
		watched, closed int64
		closedSet       bool
	}{
		{"closed-old", "confirmed", ms(30 * day), ms(8 * day), true},
		{"dismissed-old", "dismissed", ms(9 * day), ms(7*day + time.Minute), true},
		{"closed-recent", "dismissed", ms(30 * day), ms(6 * day), true},
		{"pending-forgotten", "pending", ms(91 * day), 0, false},
		{"pending-recent", "pending", ms(89 * day), 0, false},
	}
	for _, r := range rows {
		var closed any
		if r.closedSet {
			closed = r.closed
		}
		b.exec(t, `INSERT INTO watch_events (id, user_id, source, title, dedup_key, status, watched_at, closed_at)
			VALUES (?, 'u', 'plex', 'Heat', 'tmdb:949', ?, ?, ?)`, r.id, r.status, r.watched, closed)
	}
	if err := NewWatchEventPurger(b.store, b.cfg).RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	var left []string
	q, err := b.db.Query(`SELECT id FROM watch_events ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	for q.Next() {
		var id string
		_ = q.Scan(&id)
		left = append(left, id)
	}
	if want := []string{"closed-recent", "pending-recent"}; !slices.Equal(left, want) {
		t.Errorf("watch events left: %v, want %v", left, want)
	}
}
