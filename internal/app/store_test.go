package app_test

import (
	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/app"
)

// Both stores run the server: a method one of them lacks fails the build here.
var (
	_ app.Store = (*sqlite.Store)(nil)
	_ app.Store = (*postgres.Store)(nil)
)
