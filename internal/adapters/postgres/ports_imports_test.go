package postgres_test

import (
	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/maintenance"
	"moviesdiary/internal/usecase/importer"
)

// The ports the diary import repository completes, checked at compile time as the SQLite
// store's are.
var (
	_ importer.Store      = (*postgres.Store)(nil)
	_ maintenance.Imports = (*postgres.Store)(nil)
)
