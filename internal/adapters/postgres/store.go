// Package postgres is moviesdiary's PostgreSQL adapter, the store for instances that run several
// servers and workers on several hosts: the store and its connection pool, migrations, the
// outbox insert path, the event queue the worker consumes (claims with FOR UPDATE SKIP LOCKED),
// the processed-event ledger and the commit notifier (LISTEN/NOTIFY). It keeps the SQLite
// adapter's tables, encodings and delivery rules; only the SQL differs.
package postgres

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib" // also the "pgx" database/sql driver migrate opens
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlstore"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// driverName is pgx's database/sql driver; sqlx knows it binds $1, $2, ….
const driverName = "pgx"

// MaxConnsDefault is the pool's size when Open is given none: enough for a server's concurrent
// requests or a worker's handlers without exhausting max_connections (100 by default) across a
// few processes. The pool keeps as many idle unless told otherwise: a connection closed while
// the load lasts is opened again at once, a fork, an authentication and cold caches on the
// server (make bench's POST /reviews with 10 of 20 kept: 6 new sessions a second). Idle
// connections still close after idleTimeout.
const MaxConnsDefault = 20

// idleTimeout is how long a connection stays open unused.
const idleTimeout = 5 * time.Minute

// Store is one process's handle on the PostgreSQL database: a pool of connections (PostgreSQL
// handles concurrent writers itself, so there is no single writer connection and no group
// commit), and the commit notifier its queues wait on.
type Store struct {
	// Store holds the repositories written once for both engines.
	*sqlstore.Store
	url    string
	db     *sqlx.DB
	now    func() time.Time
	insert sqlstore.EnqueueFunc

	// notify is the LISTEN connection, started by the first Queue and stopped by Close.
	notifyOnce sync.Once
	notify     *notifier
	stop       context.CancelFunc
	bg         sync.WaitGroup
	// notifyPoll is the notifier's fallback poll (WithNotifyPoll, tests).
	notifyPoll time.Duration
	// woke holds the transactions that enqueued events or asked for a wake-up: their commit
	// is announced after it (wake.go), never from inside them.
	woke sync.Map
	// kick asks the waker for one pg_notify; wakeStop ends it (Close).
	kick     chan struct{}
	wakeStop context.CancelFunc
	wakes    atomic.Int64 // wake-ups asked for (tests)
}

// Option configures a Store at Open.
type Option func(*options)

type options struct {
	now      func() time.Time
	enqueue  sqlstore.EnqueueFunc
	maxConns int
	maxIdle  int
	poll     time.Duration
	wait     time.Duration
	log      *slog.Logger
	// beforeMigrate, for tests, runs once between OpenMigrated's first connection and its
	// migration.
	beforeMigrate func()
	measure       *WriteFunc
}

// WithClock sets the clock of every time the store writes or compares: outbox stamps, claims,
// leases (default time.Now). Tests pass a fake one to move past leases and backoffs.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// WithEnqueue replaces how the store's writes insert their events, for tests and benchmarks
// only, as the SQLite store's option of the same name. nil keeps outbox.Insert.
func WithEnqueue(f sqlstore.EnqueueFunc) Option {
	return func(o *options) { o.enqueue = f }
}

// WriteFunc runs fn in a write transaction of the store's own, as its repositories do: enqueue
// adds events to the outbox in it, and the commit wakes the queues.
type WriteFunc func(ctx context.Context, fn func(tx *sqlx.Tx, enqueue func(...domain.Event) error) error) error

// WithMeasurementWriter sets *w to the store's own write transaction, for the benchmark's
// domain-row-plus-event measurement only (River does the same through InsertTx); everything
// else writes through the repositories.
func WithMeasurementWriter(w *WriteFunc) Option {
	return func(o *options) { o.measure = w }
}

// WithPool sets the pool's size: at most maxConns open connections, maxIdle of them kept idle
// (zero: MaxConnsDefault, and as many idle as open). The commit notifier's connection is not counted.
func WithPool(maxConns, maxIdle int) Option {
	return func(o *options) { o.maxConns, o.maxIdle = maxConns, maxIdle }
}

// WithNotifyPoll sets how long a queue waits for a commit notification before it looks anyway
// (default NotifyPollDefault): the fallback that catches due retries and a lost LISTEN
// connection.
func WithNotifyPoll(d time.Duration) Option {
	return func(o *options) { o.poll = d }
}

// StartWait is how long a process's start waits for PostgreSQL to accept connections (both
// binaries pass it to WithConnectWait): in a compose file's first start the database
// initialises its volume while the binaries start, and a restart may be under way.
const StartWait = time.Minute

// WithConnectWait makes Open retry an unreachable database for up to d, logging each failure
// to log: a process may start before PostgreSQL accepts connections (a compose file's first
// start, a database restarting). Zero tries once.
func WithConnectWait(d time.Duration, log *slog.Logger) Option {
	return func(o *options) { o.wait, o.log = d, log }
}

// WithBeforeMigrate runs f once after OpenMigrated's first connection and before its migration:
// for tests, to take the database away at that moment.
func WithBeforeMigrate(f func()) Option {
	return func(o *options) { o.beforeMigrate = f }
}

// IsURL reports whether s names a PostgreSQL database (a postgres:// or postgresql:// URL), as
// DATABASE_URL does to select this store.
func IsURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql")
}

// Open connects to the database at rawURL (postgres://… or postgresql://…) and checks that it
// answers. It does not migrate; call Migrate.
func Open(ctx context.Context, rawURL string, opts ...Option) (*Store, error) {
	o := options{}
	for _, opt := range opts {
		opt(&o)
	}
	if !IsURL(rawURL) {
		return nil, errors.New("postgres: the database URL must start with postgres:// or postgresql://")
	}
	if o.maxConns < 0 || o.maxIdle < 0 {
		return nil, fmt.Errorf("postgres: pool sizes must not be negative (max %d, idle %d)", o.maxConns, o.maxIdle)
	}
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("postgres: the database URL: %w", err)
	}
	db := sqlx.NewDb(sql.OpenDB(unreachable{stdlib.GetConnector(*cfg)}), driverName)
	maxConns := cmp.Or(o.maxConns, MaxConnsDefault)
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(min(cmp.Or(o.maxIdle, maxConns), maxConns))
	db.SetConnMaxIdleTime(idleTimeout)
	s := &Store{url: rawURL, db: db, now: o.now, insert: o.enqueue, notifyPoll: cmp.Or(o.poll, NotifyPollDefault)}
	if o.now == nil {
		s.now = time.Now
	}
	if s.insert == nil {
		s.insert = outbox.Insert
	}
	s.Store = sqlstore.New(sqlstore.Config{Dialect: &dialect{s: s}, Read: db, Now: s.now, Enqueue: s.enqueue})
	if o.measure != nil {
		*o.measure = func(ctx context.Context, fn func(*sqlx.Tx, func(...domain.Event) error) error) error {
			return s.write(ctx, func(tx *sqlx.Tx) error {
				return fn(tx, func(events ...domain.Event) error { return s.enqueue(ctx, tx, s.now(), events...) })
			})
		}
	}
	s.startWaker()
	if err := s.connect(ctx, o.wait, o.log); err != nil {
		db.Close()
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	return s, nil
}

// connect pings the database until it answers, for at most wait, backing off from 250 ms to 5 s.
func (s *Store) connect(ctx context.Context, wait time.Duration, log *slog.Logger) error {
	deadline, pause := time.Now().Add(wait), domain.Pause{Min: 250 * time.Millisecond, Max: 5 * time.Second}
	for {
		err := s.Ping(ctx)
		backoff := pause.Next()
		if err == nil || time.Now().Add(backoff).After(deadline) || ctx.Err() != nil {
			return err
		}
		if log != nil {
			log.Warn("PostgreSQL does not answer yet; retrying", "error", err, "retry_in", backoff.String())
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(backoff):
		}
	}
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	return s.db.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// Close stops the commit notifier and closes the pool: no goroutine of the store outlives it.
func (s *Store) Close() error {
	if s.stop != nil {
		s.stop()
	}
	s.wakeStop()
	s.bg.Wait()
	return s.db.Close()
}

// write runs fn in a transaction and commits it if fn returns nil. A failure for want of space
// comes back as a *domain.StorageFullError.
func (s *Store) write(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	woke := false
	err := sqlstore.RunTx(ctx, s.db, func(tx *sqlx.Tx) error {
		err := fn(tx)
		_, woke = s.woke.LoadAndDelete(tx)
		return err
	})
	if err == nil && woke {
		s.wake()
	}
	return storageFull(err)
}
