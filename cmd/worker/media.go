package main

import (
	"context"
	"log/slog"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/config"
	"moviesdiary/internal/delivery"
)

// mediaHandlers are the posters, images, search, enrichment and wrap-up handlers.
func mediaHandlers(ctx context.Context, cfg config.Config, store *sqlite.Store, log *slog.Logger) ([]delivery.Handler, error) {
	return nil, nil
}
