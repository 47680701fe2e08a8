package main

import (
	"context"
	"log/slog"
	"time"

	"moviesdiary/internal/adapters/activitypub"
	"moviesdiary/internal/adapters/metrics"
	"moviesdiary/internal/adapters/nats"
	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/config"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/maintenance"
	"moviesdiary/internal/outbox"
	"moviesdiary/internal/usecase/enrichment"
	"moviesdiary/internal/usecase/federation"
	"moviesdiary/internal/usecase/image"
	"moviesdiary/internal/usecase/mail"
	"moviesdiary/internal/usecase/movie"
	"moviesdiary/internal/usecase/poster"
	"moviesdiary/internal/usecase/search"
	"moviesdiary/internal/usecase/wrapup"
)

// store is what the worker's handlers, metrics and periodic jobs need from the database. The
// SQLite store and the PostgreSQL store both implement it.
type store interface {
	search.Index
	image.Refs
	wrapup.GenerationStore
	poster.Store
	poster.ImageStore
	enrichment.MovieStore
	enrichment.PersonStore
	movie.ResolutionStore
	activitypub.Store
	federation.Deliveries
	metrics.FederationLane
	metrics.Queue
	maintenance.Enrichments
	maintenance.Resolutions
	maintenance.WrapUps
	maintenance.Outbox
	maintenance.WatchEvents
	maintenance.Federation
	maintenance.ImageBackfill
	maintenance.MovieImagesBackfill
	maintenance.ManualMovieKeys
	maintenance.Lease
	mail.Store
	Close() error
}

// ledger is the processed-event ledger: the engine's dedup, the pruning job's, and where the
// NATS consumers record each event's outcome in its outbox row.
type ledger interface {
	delivery.Ledger
	maintenance.Ledger
	nats.Settler
}

// queue is event_queue as the pump's (db) or the relay's (nats) source.
type queue interface {
	delivery.Source
	Close() error
}

// queueConfig is the queue's settings, whichever store holds it.
type queueConfig struct {
	MaxAttempts  int
	ClaimLease   time.Duration
	Logger       *slog.Logger
	OnDeadLetter func()
}

// database is the store DATABASE_URL names with the delivery parts built on it.
type database struct {
	store
	ledger ledger
	queue  func(queueConfig) queue
	// where names it in logs: the SQLite file, or the PostgreSQL URL without its password.
	where string
	// chaos is the driver and data source the chaos recorder writes to (make chaos only).
	chaosDriver, chaosDSN string
}

// openDatabase opens and migrates the store DATABASE_URL names: PostgreSQL for a postgres:// or
// postgresql:// URL, else the SQLite file (the default, under DATA_DIR).
func openDatabase(ctx context.Context, cfg config.Config, log *slog.Logger, now func() time.Time) (*database, error) {
	if url, ok := cfg.PostgresURL(); ok {
		s, err := postgres.OpenMigrated(ctx, url, log, postgres.WithClock(now), postgres.WithConnectWait(postgres.StartWait, log),
			postgres.WithPool(cfg.DatabaseMaxConns, cfg.DatabaseMaxIdleConns))
		if err != nil {
			return nil, err
		}
		return &database{store: s, ledger: s.Ledger(), where: cfg.RedactedDatabaseURL(),
			chaosDriver: "pgx", chaosDSN: url,
			queue: func(c queueConfig) queue {
				return s.Queue(outbox.QueueConfig{MaxAttempts: c.MaxAttempts, ClaimLease: c.ClaimLease,
					Logger: c.Logger, OnDeadLetter: c.OnDeadLetter})
			}}, nil
	}
	path, err := cfg.DatabasePath()
	if err != nil {
		return nil, err
	}
	s, err := sqlite.OpenMigrated(ctx, path, log, sqlite.WithClock(now), sqlite.WithSynchronous(sqlite.Synchronous(cfg.Synchronous())))
	if err != nil {
		return nil, err
	}
	return &database{store: s, ledger: s.Ledger(), where: path,
		chaosDriver: "sqlite3", chaosDSN: "file:" + path + "?_busy_timeout=30000&_journal_mode=WAL&_synchronous=NORMAL",
		queue: func(c queueConfig) queue {
			return s.Queue(outbox.QueueConfig{MaxAttempts: c.MaxAttempts, ClaimLease: c.ClaimLease,
				Logger: c.Logger, OnDeadLetter: c.OnDeadLetter})
		}}, nil
}

// operatorStore is the outbox as `worker events …` reads and repairs it.
type operatorStore interface {
	Stats(ctx context.Context) (outbox.QueueStats, error)
	ListEvents(ctx context.Context, status, eventType string, limit int) ([]outbox.EventRow, error)
	ShowEvent(ctx context.Context, id string) (outbox.EventRow, []outbox.LedgerEntry, error)
	RetryEvents(ctx context.Context, ids []string, eventType string) (int64, error)
	DiscardEvents(ctx context.Context, f outbox.DeadFilter) (int64, error)
	DeadLettered(ctx context.Context, f outbox.DeadFilter) ([]outbox.EventRow, error)
	CountPurgeable(ctx context.Context, now time.Time, olderThan time.Duration) (int64, error)
	PurgeDone(ctx context.Context, now time.Time, olderThan time.Duration) (int64, error)
	federationStore
}

// existingStore is a database the operators' commands open: the outbox (`worker events`) and
// the catalogue (`worker movies`).
type existingStore interface {
	operatorStore
	movie.MergeStore
}

// openOperator opens the store DATABASE_URL names for `worker events` and `worker movies`, which
// never create or migrate a database.
func openOperator(ctx context.Context, cfg config.Config) (existingStore, error) {
	if url, ok := cfg.PostgresURL(); ok {
		return postgres.OpenExisting(ctx, url, postgres.WithPool(cfg.DatabaseMaxConns, cfg.DatabaseMaxIdleConns))
	}
	path, err := cfg.DatabasePath()
	if err != nil {
		return nil, err
	}
	return sqlite.OpenExisting(ctx, path)
}
