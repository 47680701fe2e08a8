package app

import (
	"context"

	"moviesdiary/internal/adapters/activitypub"
	"moviesdiary/internal/adapters/metrics"
	"moviesdiary/internal/maintenance"
	"moviesdiary/internal/usecase/auth"
	"moviesdiary/internal/usecase/goal"
	"moviesdiary/internal/usecase/importer"
	"moviesdiary/internal/usecase/integration"
	"moviesdiary/internal/usecase/moderation"
	"moviesdiary/internal/usecase/movie"
	"moviesdiary/internal/usecase/profile"
	"moviesdiary/internal/usecase/review"
	"moviesdiary/internal/usecase/search"
	"moviesdiary/internal/usecase/social"
	"moviesdiary/internal/usecase/user"
	"moviesdiary/internal/usecase/watchlist"
	"moviesdiary/internal/usecase/wrapup"
)

// Store is the database the server runs on: every port its use cases, the federation routes,
// its metrics and its hourly jobs need. The SQLite store (*sqlite.Store) and the PostgreSQL
// store (*postgres.Store) both implement it; cmd/server opens the one DATABASE_URL names.
type Store interface {
	auth.Accounts
	auth.Identities
	review.Store
	review.Reader
	review.RecentStore
	review.ExportStore
	movie.Catalog
	watchlist.Store
	social.Store
	wrapup.Store
	user.Store
	user.AdminStore
	search.Reader
	profile.Store
	goal.Store
	moderation.Store
	integration.Store
	importer.Store
	activitypub.Store
	metrics.Outbox
	maintenance.Sessions
	maintenance.Imports

	// Ping checks that the database answers; CheckWritable that it can take writes (room on
	// the disk, not read-only).
	Ping(ctx context.Context) error
	CheckWritable(ctx context.Context) error
	// DataVersion changes whenever any process commits (the API's cheap ETag basis).
	DataVersion(ctx context.Context) (int64, error)
	// Version is the schema's migration version and whether a migration failed half-way.
	Version(ctx context.Context) (version uint, dirty bool, err error)
	Close() error
}
