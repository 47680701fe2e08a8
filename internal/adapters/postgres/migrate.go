package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"

	"github.com/golang-migrate/migrate/v4"
	mpgx "github.com/golang-migrate/migrate/v4/database/pgx/v5"

	"moviesdiary/migrations"
	pgmigrations "moviesdiary/migrations/postgres"
)

// migrationsTable is golang-migrate's version table, named as on SQLite.
const migrationsTable = "schema_migrations"

// Migrate applies every embedded PostgreSQL migration not yet applied. Servers and workers all
// call it at start-up, often at the same moment: each holds a session advisory lock of its own
// for the whole run (golang-migrate's, taken inside, guards only each of its steps), so the
// others wait for it and then find the work done, whichever host they run on. A migration that
// a stop (the process's or the database's) cut short left its version dirty and committed
// nothing; it is run again (migrations.Up).
func (s *Store) Migrate(ctx context.Context, log *slog.Logger) error {
	if err := s.migrateOnce(ctx, log); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	v, dirty, err := s.Version(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	log.Debug("database migrated", "version", v, "dirty", dirty)
	return nil
}

// migrateLock names the session advisory lock every migrating process holds.
const migrateLock = "moviesdiary migrate"

func (s *Store) migrateOnce(ctx context.Context, log *slog.Logger) error {
	src, err := migrations.Source(pgmigrations.FS, migrationsTable)
	if err != nil {
		return fmt.Errorf("read embedded migrations: %w", err)
	}
	// A pool of its own: golang-migrate closes what it is given. One connection holds the lock
	// (closing the pool releases it too); golang-migrate runs on the other.
	db, err := sql.Open(driverName, s.url)
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(2)
	lock, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return fmt.Errorf("connect: %w", err)
	}
	if _, err := lock.ExecContext(ctx, `SELECT pg_advisory_lock(hashtextextended($1, 0))`, migrateLock); err != nil {
		lock.Close()
		db.Close()
		return fmt.Errorf("take the migration lock: %w", err)
	}
	defer lock.Close()
	// A database made by the original movies-diary is converted to our schema first (adopt.go).
	if err := adoptLegacy(ctx, db, log); err != nil {
		db.Close()
		return fmt.Errorf("adopt movies-diary database: %w", err)
	}
	drv, err := mpgx.WithInstance(db, &mpgx.Config{MigrationsTable: migrationsTable})
	if err != nil {
		db.Close()
		return fmt.Errorf("open migration driver: %w", err)
	}
	m, err := migrate.NewWithInstance("iofs", src, "pgx5", drv)
	if err != nil {
		drv.Close()
		return fmt.Errorf("set up migrations: %w", err)
	}
	defer m.Close()
	return migrations.Up(m, src, log)
}

// Version is the applied schema version and whether a failed migration left it dirty.
func (s *Store) Version(ctx context.Context) (version uint, dirty bool, err error) {
	row := s.db.QueryRowContext(ctx, "SELECT version, dirty FROM "+migrationsTable+" LIMIT 1")
	if err := row.Scan(&version, &dirty); err != nil {
		return 0, false, fmt.Errorf("read schema version: %w", err)
	}
	return version, dirty, nil
}

// LatestVersion is the newest embedded PostgreSQL migration.
func LatestVersion() (uint, error) { return migrations.Latest(pgmigrations.FS) }

// OpenMigrated opens the database at url and applies every pending migration: what each process
// does at start-up.
//
// With WithConnectWait, a migration that fails because the database went away meanwhile (a
// restart between the first connection and the migration) is tried again within the same wait;
// a migration that fails while the database answers is returned at once.
func OpenMigrated(ctx context.Context, url string, log *slog.Logger, opts ...Option) (*Store, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	deadline := time.Now().Add(o.wait)
	for {
		s, err := Open(ctx, url, append(opts, WithConnectWait(max(0, time.Until(deadline)), o.log))...)
		if err != nil {
			return nil, err
		}
		if o.beforeMigrate != nil {
			o.beforeMigrate()
			o.beforeMigrate = nil
		}
		err = s.Migrate(ctx, log)
		if err == nil {
			return s, nil
		}
		down := s.Ping(ctx) != nil
		s.Close()
		if !down || time.Now().After(deadline) || ctx.Err() != nil {
			return nil, err
		}
		if o.log != nil {
			o.log.Warn("PostgreSQL went away during the migration; trying again", "error", err)
		}
	}
}
