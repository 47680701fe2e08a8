package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"os"
	"time"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/usecase/enrichment"
)

// Retention and thresholds of the media periodic jobs.
const (
	mediaJobsLease       = "media-jobs"
	doneEventRetention   = 7 * 24 * time.Hour
	failedWrapUpKeep     = 7 * 24 * time.Hour
	stuckWrapUpAfter     = 24 * time.Hour
	enrichmentRequestGap = 24 * time.Hour // a stale movie is re-requested at most daily
)

// mediaJobs are the periodic jobs: re-requesting stale enrichments (bounded per run, only with
// TMDb), failing stuck and deleting old failed wrap-ups, and pruning done outbox rows and old
// ledger rows. Every replica runs the loop, but a run happens only under the job lease, so one
// worker at a time does the work; the holder renews it each interval, and another takes over
// only after it expired (its holder died).
type mediaJobs struct {
	store    *sqlite.Store
	log      *slog.Logger
	interval time.Duration
	tmdb     bool
	batch    int
	holder   string
	now      func() time.Time
}

func newMediaJobs(store *sqlite.Store, log *slog.Logger, interval time.Duration, tmdb bool, batch int) *mediaJobs {
	host, _ := os.Hostname()
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	return &mediaJobs{store: store, log: log, interval: interval, tmdb: tmdb, batch: batch,
		holder: host + "/" + hex.EncodeToString(rnd[:]), now: time.Now}
}

// run runs the jobs now and every interval until ctx ends.
func (j *mediaJobs) run(ctx context.Context) {
	t := time.NewTicker(j.interval)
	defer t.Stop()
	for {
		j.runOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// runOnce runs every job if this worker holds the lease; it reports whether it did.
func (j *mediaJobs) runOnce(ctx context.Context) bool {
	now := j.now()
	// The lease outlives the interval a little, so the holder renews it before anyone else may
	// take it.
	held, err := j.store.AcquireLease(ctx, mediaJobsLease, j.holder, now, j.interval+j.interval/2)
	if err != nil || !held {
		if err != nil && ctx.Err() == nil {
			j.log.Error("media jobs: lease", "error", err)
		}
		return false
	}
	if j.tmdb {
		n, err := j.store.RequestStaleEnrichment(ctx, now, enrichment.MovieFresh, enrichment.MissingRetry, enrichmentRequestGap, j.batch)
		j.report(ctx, "stale movie enrichment requested", n, err)
	}
	deleted, failed, err := j.store.CleanupWrapUps(ctx, now.Add(-failedWrapUpKeep), now.Add(-stuckWrapUpAfter))
	j.report(ctx, "stuck wrap-ups failed", int(failed), err)
	j.report(ctx, "old failed wrap-ups deleted", int(deleted), nil)
	purged, err := j.store.PurgeDone(ctx, doneEventRetention)
	j.report(ctx, "done outbox rows pruned", int(purged), err)
	pruned, err := j.store.Ledger().Prune(ctx, now, ledgerRetention)
	j.report(ctx, "ledger rows pruned", int(pruned), err)
	return true
}

func (j *mediaJobs) report(ctx context.Context, what string, n int, err error) {
	switch {
	case err != nil && ctx.Err() == nil:
		j.log.Error("media jobs: "+what, "error", err)
	case n > 0:
		j.log.Info("media jobs: "+what, "count", n)
	}
}
