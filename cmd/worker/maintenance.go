package main

import (
	"log/slog"
	"time"

	"moviesdiary/internal/config"
	"moviesdiary/internal/maintenance"
)

// newMaintenance builds the worker's periodic jobs, run every WORKER_JOB_INTERVAL under the job
// lease (one worker at a time): stale-enrichment requests (only with TMDb, whose handlers answer
// them), the wrap-up reaper, the done-outbox purge, the ledger pruning (30 days) and the federation pruning
// (inbound ids after 14 days, unneeded published activities after 90), and the image backfill
// (once per database: the thumbnails of images stored before them), and the keying of manual
// movies stored before manual keys (merging their twins).
func newMaintenance(cfg config.Config, store store, ledger maintenance.Ledger, log *slog.Logger, now func() time.Time) *maintenance.Runner {
	jc := maintenance.JobConfig{Logger: log, Now: now}
	var jobs []maintenance.Job
	if cfg.TMDBAPIKey != "" {
		jobs = append(jobs, maintenance.NewEnrichmentRequester(store, cfg.EnrichmentBatch, jc),
			maintenance.NewResolutionRequester(store, 0, jc), maintenance.NewMovieImagesBackfiller(store, 0, jc))
	}
	jobs = append(jobs,
		maintenance.NewWrapUpReaper(store, jc),
		maintenance.NewOutboxPurger(store, jc),
		maintenance.NewLedgerPruner(ledger, jc),
		maintenance.NewWatchEventPurger(store, jc),
		maintenance.NewFederationPruner(store, jc),
		maintenance.NewImageBackfiller(store, 0, jc),
		maintenance.NewManualMovieKeyer(store, 0, jc),
	)
	return maintenance.NewRunner(maintenance.RunnerConfig{Lease: store, Interval: cfg.JobInterval, Logger: log, Now: now}, jobs...)
}
