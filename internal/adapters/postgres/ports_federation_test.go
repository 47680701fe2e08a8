package postgres_test

import (
	"moviesdiary/internal/adapters/activitypub"
	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/maintenance"
	"moviesdiary/internal/usecase/federation"
)

// The ports the federation repositories complete (the federation use case's stores, the
// ActivityPub adapter's store and keys, the federation pruner's), checked at compile time as the
// SQLite store's are.
var (
	_ federation.Accounts     = (*postgres.Store)(nil)
	_ federation.Blocks       = (*postgres.Store)(nil)
	_ federation.Reviews      = (*postgres.Store)(nil)
	_ federation.Goals        = (*postgres.Store)(nil)
	_ federation.Follows      = (*postgres.Store)(nil)
	_ federation.Publications = (*postgres.Store)(nil)
	_ federation.Inbox        = (*postgres.Store)(nil)
	_ activitypub.Store       = (*postgres.Store)(nil)
	_ activitypub.Keys        = (*postgres.Store)(nil)
	_ maintenance.Federation  = (*postgres.Store)(nil)
)
