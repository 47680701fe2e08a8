package main

import (
	"context"
	"log/slog"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/config"
	"moviesdiary/internal/delivery"
)

// productionHandlers are the handlers this build registers: each area's set, built in its own
// file so the areas do not tangle.
func productionHandlers(ctx context.Context, cfg config.Config, store *sqlite.Store, log *slog.Logger) ([]delivery.Handler, error) {
	media, err := mediaHandlers(cfg, store, log)
	if err != nil {
		return nil, err
	}
	federation, err := federationHandlers(ctx, cfg, store, log)
	if err != nil {
		return nil, err
	}
	return append(media, federation...), nil
}
