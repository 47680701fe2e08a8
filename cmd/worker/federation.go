package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"moviesdiary/internal/adapters/activitypub"
	"moviesdiary/internal/adapters/metrics"
	"moviesdiary/internal/config"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/federation"
)

// federationHandlers turn domain events into ActivityPub activities and hand their deliveries to
// the delivery lane, and process the activities the server's inboxes stored; the inbound
// activities they drop are counted in moviesdiary_federation_ignored_total. The lane is
// returned as a part of its own: it sends with its own concurrency and per-host limits, so a
// fan-out or a dead host never holds the handlers' slots (docs/adr/0005-federation-delivery.md).
func federationHandlers(_ context.Context, cfg config.Config, store store, log *slog.Logger, now func() time.Time,
	register func(prometheus.Collector) error) ([]delivery.Handler, []part, error) {
	var lane *federation.Lane
	fed, err := activitypub.New(store, activitypub.Config{
		BaseURL:           cfg.BaseURL,
		Client:            activitypub.NewClient(activitypub.ClientConfig{AllowPrivate: cfg.FederationAllowPrivate}),
		Logger:            log,
		AllowRegistration: cfg.Registration() == domain.RegistrationOpen,
		Deliveries:        store,
		Wake:              func() { lane.Wake() },
	})
	if err != nil {
		return nil, nil, err
	}
	if err := register(fed.Collector()); err != nil {
		return nil, nil, err
	}
	outcomes := metrics.NewFederationAttempts()
	if err := register(outcomes); err != nil {
		return nil, nil, err
	}
	if err := register(metrics.NewFederationCollector(store, log)); err != nil {
		return nil, nil, err
	}
	lane = federation.NewLane(store, fed, federation.LaneConfig{
		Policy:      federation.Policy{RetryWindow: cfg.FederationRetryWindow, UnavailableAfter: cfg.FederationHostUnavailableAfter},
		Concurrency: cfg.FederationDeliveryConcurrency,
		PerHost:     cfg.FederationDeliveryPerHost,
		Rate:        cfg.FederationDeliveryRate,
		Now:         now,
		Logger:      log,
		Observe:     func(outcome string) { outcomes.WithLabelValues(outcome).Inc() },
		Refuse:      fed.RefuseHost,
	})
	return fed.Handlers(), []part{lane.Run}, nil
}
