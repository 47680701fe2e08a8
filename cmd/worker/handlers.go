package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"moviesdiary/internal/config"
	"moviesdiary/internal/delivery"
)

// productionHandlers are the handlers this build registers: each area's set, built in its own
// file so the areas do not tangle. register adds an area's own metrics to the worker's.
// The areas' long-lived parts (the federation delivery lane) come back beside them.
func productionHandlers(ctx context.Context, cfg config.Config, store store, log *slog.Logger, now func() time.Time,
	register func(prometheus.Collector) error) ([]delivery.Handler, []part, error) {
	media, err := mediaHandlers(ctx, cfg, store, log)
	if err != nil {
		return nil, nil, err
	}
	federation, parts, err := federationHandlers(ctx, cfg, store, log, now, register)
	if err != nil {
		return nil, nil, err
	}
	mail, err := mailHandlers(cfg, store, log)
	if err != nil {
		return nil, nil, err
	}
	return append(append(media, federation...), mail...), parts, nil
}
