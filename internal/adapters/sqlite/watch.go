package sqlite

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// watchInterval is how often the watcher asks SQLite whether another connection committed. The
// question (PRAGMA data_version) reads shared memory only, so asking often is cheap, and it
// bounds how long a committed event waits before a claim.
const watchInterval = time.Millisecond

// watcher wakes the consumer when any other connection — the server process, another worker, or
// this process's own writer — commits to the database.
type watcher struct {
	s    *Store
	mu   sync.Mutex
	db   *sql.DB
	last int64
}

func newWatcher(s *Store) *watcher { return &watcher{s: s} }

// wait returns once data_version changes, after max, or when ctx ends.
func (w *watcher) wait(ctx context.Context, max time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		// data_version is per connection, so the watcher keeps one of its own.
		db, err := openWatchDB(w.s.path)
		if err != nil {
			return err
		}
		w.db = db
		if w.last, err = w.version(ctx); err != nil {
			return err
		}
	}
	deadline := time.NewTimer(max)
	defer deadline.Stop()
	tick := time.NewTicker(watchInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-deadline.C:
			return nil
		case <-tick.C:
			v, err := w.version(ctx)
			if err != nil {
				return err
			}
			if v != w.last {
				w.last = v
				return nil
			}
		}
	}
}

func (w *watcher) version(ctx context.Context) (int64, error) {
	var v int64
	err := w.db.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v)
	return v, err
}

func (w *watcher) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		return nil
	}
	return w.db.Close()
}

func openWatchDB(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite3", dsn(path, "deferred")+"&_query_only=1")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	return db, nil
}
