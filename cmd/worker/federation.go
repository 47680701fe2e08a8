package main

import (
	"context"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"moviesdiary/internal/adapters/activitypub"
	"moviesdiary/internal/config"
	"moviesdiary/internal/delivery"
)

// federationHandlers turn domain events into ActivityPub activities and deliver them, and
// process the activities the server's inboxes stored; the inbound activities they drop are
// counted in moviesdiary_federation_ignored_total.
func federationHandlers(_ context.Context, cfg config.Config, store store, log *slog.Logger,
	register func(prometheus.Collector) error) ([]delivery.Handler, error) {
	fed, err := activitypub.New(store, activitypub.Config{
		BaseURL:           cfg.BaseURL,
		Client:            activitypub.NewClient(activitypub.ClientConfig{AllowPrivate: cfg.FederationAllowPrivate}),
		Logger:            log,
		AllowRegistration: cfg.AllowRegistration,
	})
	if err != nil {
		return nil, err
	}
	if err := register(fed.Collector()); err != nil {
		return nil, err
	}
	return fed.Handlers(), nil
}
