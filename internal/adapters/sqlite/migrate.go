package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"syscall"
	"time"

	"github.com/golang-migrate/migrate/v4"
	msqlite "github.com/golang-migrate/migrate/v4/database/sqlite3"

	"moviesdiary/internal/domain"
	"moviesdiary/migrations"
)

// Bounded retry for a migration that still races (a busy database): 100 ms doubling to 1 s, at
// most 5 retries.
const (
	migrateRetries     = 5
	migrateBackoffMin  = 100 * time.Millisecond
	migrateBackoffMax  = time.Second
	migrationsTable    = "schema_migrations"
	migrateLockSuffix  = ".migrate.lock"
	migrateLockTimeout = 2 * time.Minute
)

// Migrate applies every embedded migration not yet applied. Server and worker both call it at
// start-up, often at the same moment on an empty database: golang-migrate's SQLite lock only
// guards one process, so an exclusive flock on a file beside the database serialises the
// processes, and the loser finds the work done. A migration that a stop cut short left its
// version dirty and committed nothing; it is run again (migrations.Up).
func (s *Store) Migrate(ctx context.Context, log *slog.Logger) error {
	unlock, err := lockFile(ctx, s.path+migrateLockSuffix)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer unlock()

	// A database made by the original movies-diary is converted to our schema first (adopt.go).
	if err := s.adoptLegacy(ctx, log); err != nil {
		return fmt.Errorf("migrate: adopt movies-diary database: %w", err)
	}
	if err := migrateWithRetry(ctx, log, func() error { return s.migrateOnce(log) }, sleep); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	// What migration 0186 carried from an adopted database but SQL could not key (adopt.go).
	if err := s.rekeyAdoptedWatches(ctx, log); err != nil {
		return fmt.Errorf("migrate: key adopted watch events: %w", err)
	}
	return nil
}

// migrateWithRetry runs once until it succeeds, fails with an error that is not a race, or has
// been retried migrateRetries times, waiting migrateBackoffMin doubling to migrateBackoffMax
// between tries (through wait, which tests replace to see the schedule without sleeping).
func migrateWithRetry(ctx context.Context, log *slog.Logger, once func() error, wait func(context.Context, time.Duration) error) error {
	backoff := domain.Pause{Min: migrateBackoffMin, Max: migrateBackoffMax}
	for attempt := 0; ; attempt++ {
		err := once()
		if err == nil || attempt == migrateRetries || !retryable(err) {
			return err
		}
		d := backoff.Next()
		log.Warn("migration raced, retrying", "error", err, "retry_in", d)
		if err := wait(ctx, d); err != nil {
			return err
		}
	}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Store) migrateOnce(log *slog.Logger) error {
	src, err := migrations.Source(migrations.FS, migrationsTable)
	if err != nil {
		return fmt.Errorf("read embedded migrations: %w", err)
	}
	// A connection of its own: golang-migrate closes what it is given.
	db, err := sql.Open("sqlite3", dsn(s.path, "immediate"))
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	drv, err := msqlite.WithInstance(db, &msqlite.Config{MigrationsTable: migrationsTable})
	if err != nil {
		db.Close()
		return fmt.Errorf("open migration driver: %w", err)
	}
	m, err := migrate.NewWithInstance("iofs", src, "sqlite3", drv)
	if err != nil {
		db.Close()
		return fmt.Errorf("set up migrations: %w", err)
	}
	defer m.Close()
	return migrations.Up(m, src, log)
}

// Version is the applied schema version and whether a failed migration left it dirty.
func (s *Store) Version(ctx context.Context) (version uint, dirty bool, err error) {
	row := s.read.QueryRowContext(ctx, "SELECT version, dirty FROM "+migrationsTable+" LIMIT 1")
	if err := row.Scan(&version, &dirty); err != nil {
		return 0, false, fmt.Errorf("read schema version: %w", err)
	}
	return version, dirty, nil
}

// LatestVersion is the newest embedded migration.
func LatestVersion() (uint, error) { return migrations.Latest(migrations.FS) }

// retryable reports whether a migration failed because another connection held the database
// (SQLite's busy or locked, or golang-migrate's own lock), so that trying again can succeed.
func retryable(err error) bool {
	return busyOrLocked(err) || errors.Is(err, migrate.ErrLocked)
}

// lockFile takes an exclusive advisory lock on path, polling until ctx or a timeout ends.
func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	deadline := time.Now().Add(migrateLockTimeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("lock %s: another process held it for %s", path, migrateLockTimeout)
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		}
	}
}

// OpenMigrated opens the database at path and applies every pending migration: what each
// process does at start-up.
func OpenMigrated(ctx context.Context, path string, log *slog.Logger, opts ...Option) (*Store, error) {
	s, err := Open(ctx, path, opts...)
	if err != nil {
		return nil, err
	}
	if err := s.Migrate(ctx, log); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}
