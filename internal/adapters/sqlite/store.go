// Package sqlite is moviesdiary's SQLite adapter: the store and its connections, migrations, the
// outbox insert path, the event queue consumed by the worker and the processed-event ledger.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/mattn/go-sqlite3"

	"moviesdiary/internal/adapters/sqlstore"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// driverName is go-sqlite3 with the per-connection settings no DSN parameter offers: temporary
// b-trees and savepoint journals in memory (a group commit's per-request savepoints otherwise
// spill to a temporary file).
const driverName = "sqlite3-moviesdiary"

// writerDriverName is driverName for the writer connection, which leaves checkpoints to the
// checkpointer.
const writerDriverName = "sqlite3-moviesdiary-writer"

func init() {
	register(driverName, "PRAGMA temp_store = MEMORY")
	registerShielded(writerDriverName, "PRAGMA temp_store = MEMORY; PRAGMA wal_autocheckpoint = 0")
}

// register makes name a go-sqlite3 driver that runs pragmas on every new connection.
func register(name, pragmas string) {
	sql.Register(name, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		_, err := c.Exec(pragmas, nil)
		return err
	}})
	// sqlx learns the placeholder style from the driver's name: SQLite's "?".
	sqlx.BindDriver(name, sqlx.QUESTION)
}

// Store is one process's handle on the database. Writes go through a single connection whose
// transactions start with BEGIN IMMEDIATE: SQLite allows one writer at a time anyway, and taking
// the write lock up front means a transaction never fails trying to upgrade a read lock
// (SQLITE_BUSY mid-transaction). Reads use a separate pool and never wait for the writer (WAL).
type Store struct {
	// Store holds the repositories written once for both engines.
	*sqlstore.Store
	path  string
	write *sqlx.DB
	read  *sqlx.DB
	now   func() time.Time
	// insert writes a transaction's events: outbox.Insert except where WithEnqueue replaced it.
	insert sqlstore.EnqueueFunc
	// group commits the repositories' concurrent writes together (writeGrouped).
	group groupCommit
	ckpt  *checkpointer
	// stop ends the background loops (the checkpointer) that bg joins at Close.
	stop context.CancelFunc
	bg   sync.WaitGroup
	// version answers DataVersion.
	version dataVersion
}

// Option configures a Store at Open.
type Option func(*options)

type options struct {
	now     func() time.Time
	enqueue sqlstore.EnqueueFunc
	measure *WriteFunc
	sync    Synchronous
}

// Synchronous is SQLite's synchronous setting of the writer connection (SQLITE_SYNCHRONOUS).
type Synchronous string

const (
	// SynchronousNormal syncs the WAL only at checkpoints: a commit survives a process crash but
	// the last commits before a power loss or kernel crash can vanish.
	SynchronousNormal Synchronous = "normal"
	// SynchronousFull syncs the WAL at every commit: an acknowledged write survives a power loss.
	// Group commit shares one sync among the requests of a group.
	SynchronousFull Synchronous = "full"
	// SynchronousDefault is what Open uses without WithSynchronous.
	SynchronousDefault = SynchronousNormal
)

// ParseSynchronous reads "normal" or "full" (any case).
func ParseSynchronous(s string) (Synchronous, error) {
	switch v := Synchronous(strings.ToLower(s)); v {
	case SynchronousNormal, SynchronousFull:
		return v, nil
	}
	return "", fmt.Errorf("%q is not a synchronous setting (normal or full)", s)
}

// WithSynchronous sets the writer connection's synchronous setting (default SynchronousDefault).
func WithSynchronous(v Synchronous) Option {
	return func(o *options) { o.sync = v }
}

// WithClock sets the clock of every time the store writes or compares: outbox stamps, claims,
// leases, repository timestamps (default time.Now). cmd/* pass their one injected clock; tests
// pass a fake one to move past leases and backoffs.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// WithEnqueue replaces how the store's writes insert their events, for tests and the write-path
// benchmark only: a failing func proves a write rolls back with its events, a no-op measures the
// outbox's cost. A test that toggles a failure passes a func that consults its own switch and
// otherwise calls outbox.Insert. nil keeps outbox.Insert.
func WithEnqueue(f sqlstore.EnqueueFunc) Option {
	return func(o *options) { o.enqueue = f }
}

// WriteFunc runs fn in a write transaction of its own on the store's writer connection.
type WriteFunc func(ctx context.Context, fn func(tx *sqlx.Tx) error) error

// WithMeasurementWriter sets *w to the store's own writer, for the benchmark's SQLite-limit
// measurement only, which must write exactly as the store does (its connection, settings and
// checkpoints); everything else writes through the repositories.
func WithMeasurementWriter(w *WriteFunc) Option {
	return func(o *options) { o.measure = w }
}

// Open opens (creating if needed) the database file at path. It does not migrate; call Migrate.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	o := options{now: time.Now, enqueue: outbox.Insert}
	for _, opt := range opts {
		opt(&o)
	}
	if o.now == nil {
		o.now = time.Now
	}
	if o.enqueue == nil {
		o.enqueue = outbox.Insert
	}
	if o.sync == "" {
		o.sync = SynchronousDefault
	}
	if _, err := ParseSynchronous(string(o.sync)); err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	if path == "" {
		return nil, errors.New("sqlite: empty database path")
	}
	if dir := filepath.Dir(path); dir != "" {
		// 0700 and 0600: the database holds password hashes and keys, for this user's eyes only.
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create database directory: %w", err)
		}
	}
	if err := createPrivate(path); err != nil {
		return nil, err
	}
	// The writer waits for the write lock in shieldConn.BeginTx, not in SQLite's busy handler.
	writerDSN := noBusyHandler(dsn(path, "immediate"))
	write, err := sqlx.Open(writerDriverName, strings.Replace(writerDSN, "_synchronous=NORMAL",
		"_synchronous="+strings.ToUpper(string(o.sync)), 1))
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(0)
	read, err := sqlx.Open(driverName, dsn(path, "deferred")+"&_query_only=1")
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("open database: %w", err)
	}
	read.SetMaxOpenConns(readConns())
	read.SetMaxIdleConns(readConns())
	s := &Store{path: path, write: write, read: read, now: o.now, insert: o.enqueue, ckpt: newCheckpointer(path, write.DB)}
	s.Store = sqlstore.New(sqlstore.Config{Dialect: dialect{s}, Read: read, Now: o.now, Enqueue: o.enqueue})
	bg, stop := context.WithCancel(context.Background())
	s.stop = stop
	s.bg.Go(func() { _ = s.ckpt.run(bg) })
	if err := s.enableWAL(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	if o.measure != nil {
		*o.measure = s.writeAlone
	}
	return s, nil
}

// createPrivate creates the database file, empty and 0600, when it does not exist: SQLite would
// create it with the umask's mode (0644 as a rule), readable by every local user; its -wal and
// -shm files take the database file's mode.
func createPrivate(path string) error {
	if strings.HasPrefix(path, "file:") || path == ":memory:" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create database: %w", err)
	}
	return f.Close()
}

// readConns sizes the read pool to the machine: two connections per CPU (at least four). A read
// is CPU work in SQLite's page cache or a short wait for a page from the OS, so two per core keep
// every core busy while one waits, and more would only move the queue from the pool into the
// scheduler. Every paged read is O(page) (maintained counts, an index per sort order), so a slow
// read no longer holds a connection long enough for the size to matter much.
func readConns() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

// Statements are prepared once per connection and cached (_stmt_cache_size), which only pays if
// SQLite does not prepare them again itself: it does, at every run, for a statement whose LIMIT
// or OFFSET is a bare parameter (it plans with the value), so those take CAST(? AS INTEGER); a
// claim then costs 15 µs instead of 80 µs.
//
// dsn sets the pragmas every connection needs: synchronous=NORMAL (durable at checkpoints; WAL
// makes it crash-safe; the writer's is WithSynchronous's), a busy timeout so a second process waits for the write lock instead of
// failing, and foreign keys on. WAL itself is a property of the file, set once by enableWAL.
func dsn(path, txlock string) string {
	v := url.Values{}
	v.Set("_synchronous", "NORMAL")
	v.Set("_busy_timeout", "10000")
	v.Set("_foreign_keys", "on")
	v.Set("_txlock", txlock)
	v.Set("_stmt_cache_size", "64")
	return "file:" + path + "?" + v.Encode()
}

// noBusyHandler is d without SQLite's busy handler: the connection tries a lock once and its
// caller waits itself, in pauses far shorter than the handler's (busy.go).
func noBusyHandler(d string) string {
	return strings.Replace(d, "_busy_timeout=10000", "_busy_timeout=0", 1)
}

// enableWAL switches the file to WAL (readers never block the writer), once per file: the mode
// persists. Changing the journal mode can fail with "database is locked" without waiting for the
// busy timeout while another process migrates or writes, so it is retried for a while.
func (s *Store) enableWAL(ctx context.Context) error {
	deadline := time.Now().Add(30 * time.Second)
	backoff := domain.Pause{Min: 10 * time.Millisecond, Max: time.Second}
	for {
		var mode string
		err := s.write.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode)
		if err == nil && mode == "wal" {
			return nil
		}
		if err == nil {
			err = fmt.Errorf("journal mode is %q, not wal", mode)
		}
		if !busyOrLocked(err) || time.Now().After(deadline) {
			return fmt.Errorf("enable WAL: %w", err)
		}
		select {
		case <-time.After(backoff.Next()):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Close stops the group-commit loop and the checkpointer, waits for both, and closes both pools:
// no goroutine of the store outlives it.
func (s *Store) Close() error {
	s.group.close()
	s.stop()
	s.bg.Wait()
	return errors.Join(s.version.close(), s.read.Close(), s.write.Close())
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Ping checks that the database answers a read.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	return s.read.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// writeAlone runs fn in a write transaction of its own (BEGIN IMMEDIATE) and commits it if fn
// returns nil. A failure for want of space comes back as a *domain.StorageFullError.
func (s *Store) writeAlone(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	if err := sqlstore.RunTx(ctx, s.write, fn); err != nil {
		return storageFull(err)
	}
	s.ckpt.committed()
	return nil
}
