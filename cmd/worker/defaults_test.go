package main

import (
	"strconv"
	"testing"
	"time"

	"moviesdiary/internal/adapters/nats"
	"moviesdiary/internal/adapters/tmdb"
	"moviesdiary/internal/config"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/maintenance"
	"moviesdiary/internal/outbox"
)

// TestWorkerDefaultsMatchThePackages: each worker variable's envconfig default is the constant
// the package it configures falls back to, so the two sources of a default cannot drift.
func TestWorkerDefaultsMatchThePackages(t *testing.T) {
	defaults := config.Defaults()
	for env, want := range map[string]time.Duration{
		"EVENT_QUEUE_CLAIM_LEASE":  outbox.ClaimLeaseDefault,
		"EVENT_QUEUE_LEDGER_LEASE": delivery.LedgerLeaseDefault,
		"EVENT_QUEUE_BACKOFF_BASE": domain.BackoffBase,
		"NATS_ACK_WAIT":            nats.AckWaitDefault,
		"TMDB_TIMEOUT":             tmdb.TimeoutDefault,
		"POSTER_FETCH_TIMEOUT":     tmdb.ImageTimeoutDefault,
		"WORKER_JOB_INTERVAL":      maintenance.IntervalDefault,
	} {
		got, err := time.ParseDuration(defaults[env])
		if err != nil || got != want {
			t.Errorf("%s: default %q (%v), the package's is %s", env, defaults[env], err, want)
		}
	}
	for env, want := range map[string]int64{
		"IMAGE_MAX_BYTES":            tmdb.MaxImageBytesDefault,
		"ENRICHMENT_STALENESS_BATCH": maintenance.EnrichmentBatchDefault,
	} {
		got, err := strconv.ParseInt(defaults[env], 10, 64)
		if err != nil || got != want {
			t.Errorf("%s: default %q (%v), the package's is %d", env, defaults[env], err, want)
		}
	}
	if got := defaults["TMDB_IMAGE_URL"]; got != tmdb.ImageURLDefault {
		t.Errorf("TMDB_IMAGE_URL: default %q, the package's is %q", got, tmdb.ImageURLDefault)
	}
	if delivery.BackoffBaseDefault != domain.BackoffBase {
		t.Errorf("delivery.BackoffBaseDefault %s, domain.BackoffBase %s", delivery.BackoffBaseDefault, domain.BackoffBase)
	}
}
