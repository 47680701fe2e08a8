package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestWatcherWakesOnTheCommit: a waiting watcher returns on a commit by another connection,
// through the -wal file's inotify event (the fallback poll is an hour away), and without inotify
// through its poll; a wait with nothing committed lasts until its deadline.
func TestWatcherWakesOnTheCommit(t *testing.T) {
	t.Parallel()
	for _, notify := range []bool{true, false} {
		s := openStore(t, filepath.Join(t.TempDir(), "watch.db"))
		ctx := context.Background()
		if err := s.Migrate(ctx, testLogger(t)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.write.ExecContext(ctx, `CREATE TABLE watch_test (n INTEGER)`); err != nil {
			t.Fatal(err)
		}
		w := newWatcher(s)
		w.slow, w.noNotify = time.Hour, !notify
		t.Cleanup(func() { w.close() })
		start := time.Now()
		if err := w.wait(ctx, 20*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if time.Since(start) < 20*time.Millisecond {
			t.Fatalf("notify %v: a wait with no commit returned early", notify)
		}
		if notify && w.fs == nil {
			t.Fatal("no inotify watch of the database's directory")
		}
		before := w.last
		done := make(chan error, 1)
		go func() { done <- w.wait(ctx, time.Minute) }()
		// Commit until the waiter has returned: a commit made before it started to wait is
		// also seen (it looks once before sleeping).
		deadline := time.After(10 * time.Second)
	loop:
		for {
			if _, err := s.write.ExecContext(ctx, `INSERT INTO watch_test (n) VALUES (1)`); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
				break loop
			case <-deadline:
				t.Fatalf("notify %v: the watcher did not wake on commits within 10 s", notify)
			case <-time.After(50 * time.Millisecond):
			}
		}
		if w.last == before {
			t.Errorf("notify %v: woke without a new data_version", notify)
		}
	}
}
