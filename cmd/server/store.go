package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"path/filepath"
	"time"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/app"
	"moviesdiary/internal/config"
)

// database is the store DATABASE_URL names, with what the server says and does about it
// beyond the ports.
type database struct {
	app.Store
	// where names it in logs: the SQLite file, or the PostgreSQL URL without its password.
	where string
	// latest is the newest migration this build carries; /ready wants the schema there.
	latest uint
	// secret is the JWT secret when JWT_SECRET is unset: SQLite's is kept in DATA_DIR, and
	// PostgreSQL's in the database, so servers on several hosts share it.
	secret func(ctx context.Context) (value []byte, generated bool, err error)
	// secretWhere names where secret keeps it, for the log: the file in DATA_DIR, or the
	// PostgreSQL database.
	secretWhere string
}

// openDatabase opens and migrates the store DATABASE_URL names: PostgreSQL for a postgres:// or
// postgresql:// URL, else the SQLite file (the default, under DATA_DIR).
func openDatabase(ctx context.Context, cfg config.Config, log *slog.Logger, now func() time.Time) (*database, error) {
	if url, ok := cfg.PostgresURL(); ok {
		store, err := postgres.OpenMigrated(ctx, url, log, postgres.WithClock(now), postgres.WithConnectWait(postgres.StartWait, log),
			postgres.WithPool(cfg.DatabaseMaxConns, cfg.DatabaseMaxIdleConns))
		if err != nil {
			return nil, err
		}
		latest, err := postgres.LatestVersion()
		if err != nil {
			store.Close()
			return nil, err
		}
		return &database{Store: store, where: cfg.RedactedDatabaseURL(), latest: latest,
			secretWhere: "the database " + cfg.RedactedDatabaseURL(),
			secret: func(ctx context.Context) ([]byte, bool, error) {
				v, created, err := store.Secret(ctx, "jwt", newSecret)
				return []byte(v), created, err
			}}, nil
	}
	path, err := cfg.DatabasePath()
	if err != nil {
		return nil, err
	}
	store, err := sqlite.OpenMigrated(ctx, path, log, sqlite.WithClock(now), sqlite.WithSynchronous(sqlite.Synchronous(cfg.Synchronous())))
	if err != nil {
		return nil, err
	}
	latest, err := sqlite.LatestVersion()
	if err != nil {
		store.Close()
		return nil, err
	}
	return &database{Store: store, where: path, latest: latest, secretWhere: filepath.Join(cfg.DataDir, secretFile),
		secret: func(context.Context) ([]byte, bool, error) { return jwtSecret("", cfg.DataDir) }}, nil
}

// openExisting opens the store DATABASE_URL names for the operators' commands, which never
// create or migrate a database.
func openExisting(ctx context.Context, cfg config.Config) (app.Store, error) {
	if url, ok := cfg.PostgresURL(); ok {
		return postgres.OpenExisting(ctx, url, postgres.WithPool(cfg.DatabaseMaxConns, cfg.DatabaseMaxIdleConns))
	}
	path, err := cfg.DatabasePath()
	if err != nil {
		return nil, err
	}
	return sqlite.OpenExisting(ctx, path)
}

// newSecret is a random JWT secret: 32 bytes, hex.
func newSecret() (string, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	return hex.EncodeToString(raw), nil
}

// errNotSQLite refuses the commands that copy a SQLite file (backup, restore) on PostgreSQL.
var errNotSQLite = errors.New("DATABASE_URL names a PostgreSQL database: back it up with pg_dump (and the images with your object store's tools); see docs/multi-host.md")
