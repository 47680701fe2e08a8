package main

import (
	"context"
	"log/slog"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/config"
	"moviesdiary/internal/delivery"
)

// federationHandlers turn domain events into ActivityPub activities and deliver them.
func federationHandlers(ctx context.Context, cfg config.Config, store *sqlite.Store, log *slog.Logger) ([]delivery.Handler, error) {
	return nil, nil
}
