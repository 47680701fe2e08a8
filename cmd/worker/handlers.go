package main

import (
	"context"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"moviesdiary/internal/config"
	"moviesdiary/internal/delivery"
)

// productionHandlers are the handlers this build registers: each area's set, built in its own
// file so the areas do not tangle. register adds an area's own metrics to the worker's.
func productionHandlers(ctx context.Context, cfg config.Config, store store, log *slog.Logger,
	register func(prometheus.Collector) error) ([]delivery.Handler, error) {
	media, err := mediaHandlers(ctx, cfg, store, log)
	if err != nil {
		return nil, err
	}
	federation, err := federationHandlers(ctx, cfg, store, log, register)
	if err != nil {
		return nil, err
	}
	return append(media, federation...), nil
}
