package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"time"

	"moviesdiary/internal/domain"

	"github.com/fsnotify/fsnotify"
)

// The watcher wakes on the commit itself: every commit write()s its frames to the database's
// -wal file, and inotify (fsnotify) reports that write at once, so an idle worker sleeps without
// polling and still notices a commit in well under a millisecond. PRAGMA data_version stays the
// truth: an event only says "look now". The last write of a commit comes just before SQLite
// publishes the commit in the wal-index (and, with synchronous=full, before the fsync), so an
// event that finds no new version is looked at again after watchSettle, doubling, for watchSpin:
// those pauses are nanosleeps (pause), since a Go timer of 50 µs fires after about a millisecond
// on an idle machine, which was most of an idle worker's commit→handler time. After that a timer
// looks every watchMin until watchChase has passed. A slow poll (watchSlow) covers filesystems without inotify and any
// missed event; without inotify at all, the watcher polls as it did before: every watchMin right
// after activity, slowing by a quarter per quiet poll to watchMax.
const (
	watchSettle = 20 * time.Microsecond
	watchSpin   = 500 * time.Microsecond
	watchMin    = time.Millisecond
	watchMax    = 8 * time.Millisecond
	watchChase  = 20 * time.Millisecond
	watchSlow   = 250 * time.Millisecond
)

// watcher wakes the consumer when any other connection — the server process, another worker, or
// this process's own writer — commits to the database.
type watcher struct {
	s    *Store
	mu   sync.Mutex
	db   *sql.DB
	stmt *sql.Stmt
	last int64
	// wal is the -wal file's path and fs its directory's watch; nil fs: poll only.
	wal string
	fs  *fsnotify.Watcher
	// slow is the fallback poll's interval (watchSlow; tests lengthen it).
	slow time.Duration
	// noNotify makes the watcher poll only, as on a filesystem without inotify (tests).
	noNotify bool
}

func newWatcher(s *Store) *watcher { return &watcher{s: s, slow: watchSlow} }

// wait returns once data_version changes, after max, or when ctx ends.
func (w *watcher) wait(ctx context.Context, max time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		if err := w.open(ctx); err != nil {
			return err
		}
	}
	deadline := time.NewTimer(max)
	defer deadline.Stop()
	if w.fs == nil {
		return w.poll(ctx, deadline.C)
	}
	// A commit may have come between the caller's last look and now.
	if changed, err := w.changed(ctx); changed || err != nil {
		return err
	}
	slow := time.NewTicker(w.slow)
	defer slow.Stop()
	chase := time.NewTimer(time.Hour)
	chase.Stop()
	defer chase.Stop()
	var chaseEnd time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-deadline.C:
			return nil
		case ev, ok := <-w.fs.Events:
			if !ok {
				w.fs = nil
				return w.poll(ctx, deadline.C)
			}
			if ev.Name != w.wal || !ev.Has(fsnotify.Write) && !ev.Has(fsnotify.Create) {
				continue
			}
			if changed, err := w.settle(ctx); changed || err != nil {
				return err
			}
			chaseEnd = time.Now().Add(watchChase)
			chase.Reset(watchMin)
		case <-w.fs.Errors:
			// An overflowed or failed watch: the chase and the slow poll still look.
			chaseEnd = time.Now().Add(watchChase)
			chase.Reset(watchMin)
		case <-chase.C:
			// The chase looks every watchMin: its pause never grew (it was min(2×watchMin,
			// watchMin)), so it is written as the fixed interval it is.
			if changed, err := w.changed(ctx); changed || err != nil {
				return err
			}
			if time.Now().Before(chaseEnd) {
				chase.Reset(watchMin)
			}
		case <-slow.C:
			if changed, err := w.changed(ctx); changed || err != nil {
				return err
			}
		}
	}
}

// settle looks for a new data_version at once and then after pauses of watchSettle, doubling,
// until watchSpin has passed: the commit whose write woke the watcher is published within
// microseconds.
func (w *watcher) settle(ctx context.Context) (bool, error) {
	start := time.Now()
	// Capped at watchSpin, which the doubling pauses sum past before any one of them reaches it.
	wait := domain.Pause{Min: watchSettle, Max: watchSpin}
	for {
		if changed, err := w.changed(ctx); changed || err != nil {
			return changed, err
		}
		if time.Since(start) >= watchSpin {
			return false, nil
		}
		pause(wait.Next())
	}
}

// poll waits for a new data_version by polling alone.
func (w *watcher) poll(ctx context.Context, deadline <-chan time.Time) error {
	interval := domain.Pause{Min: watchMin, Max: watchMax, Growth: 1.25}
	tick := time.NewTimer(interval.Next())
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-deadline:
			return nil
		case <-tick.C:
			if changed, err := w.changed(ctx); changed || err != nil {
				return err
			}
			tick.Reset(interval.Next())
		}
	}
}

// changed reports whether data_version moved since the last look, and remembers it.
func (w *watcher) changed(ctx context.Context) (bool, error) {
	v, err := w.version(ctx)
	if err != nil || v == w.last {
		return false, err
	}
	w.last = v
	return true, nil
}

// open makes the watcher's connection (data_version is per connection) and, where inotify
// works, the watch of the database's directory: the -wal file itself comes and goes (SQLite
// deletes it when the last connection closes), the directory stays.
func (w *watcher) open(ctx context.Context) error {
	db, err := openWatchDB(w.s.path)
	if err != nil {
		return err
	}
	stmt, err := db.PrepareContext(ctx, "PRAGMA data_version")
	if err != nil {
		db.Close()
		return err
	}
	w.db, w.stmt = db, stmt
	if w.last, err = w.version(ctx); err != nil {
		return err
	}
	abs, err := filepath.Abs(w.s.path)
	if err != nil || w.noNotify {
		return nil // poll only
	}
	fs, err := fsnotify.NewWatcher()
	if err != nil {
		return nil
	}
	if err := fs.Add(filepath.Dir(abs)); err != nil {
		fs.Close()
		return nil
	}
	w.wal, w.fs = abs+"-wal", fs
	return nil
}

func (w *watcher) version(ctx context.Context) (int64, error) {
	var v int64
	err := w.stmt.QueryRowContext(ctx).Scan(&v)
	return v, err
}

func (w *watcher) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		return nil
	}
	if w.fs != nil {
		w.fs.Close()
	}
	w.stmt.Close()
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
