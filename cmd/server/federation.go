package main

import (
	"log/slog"

	"moviesdiary/internal/adapters/activitypub"
	"moviesdiary/internal/buildinfo"
	"moviesdiary/internal/config"
	"moviesdiary/internal/domain"
)

// newFederation builds the ActivityPub side of the server: its routes (WebFinger, NodeInfo,
// actors, inboxes, collections, objects) and the WebFinger lookup of remote follows.
func newFederation(cfg config.Config, store activitypub.Store, log *slog.Logger) (*activitypub.Federation, error) {
	if cfg.FederationAllowPrivate {
		log.Warn("FEDERATION_ALLOW_PRIVATE=true: federation may reach loopback and private addresses")
	}
	return activitypub.New(store, activitypub.Config{
		BaseURL:           cfg.BaseURL,
		Client:            activitypub.NewClient(activitypub.ClientConfig{AllowPrivate: cfg.FederationAllowPrivate}),
		Logger:            log,
		AllowRegistration: cfg.Registration() == domain.RegistrationOpen,
		SecureMode:        cfg.FederationSecureMode,
		InboxRate:         cfg.FederationInboxRate,
		InboxBurst:        cfg.FederationInboxBurst,
		Version:           buildinfo.Version(),
	})
}
