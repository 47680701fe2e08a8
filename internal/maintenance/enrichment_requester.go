package maintenance

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"moviesdiary/internal/usecase/enrichment"
)

// Settings of the stale-enrichment requests.
const (
	// EnrichmentRequestGap is how long a movie is left alone after a request: a stale movie is
	// re-requested at most daily.
	EnrichmentRequestGap = 24 * time.Hour
	// EnrichmentBatchDefault bounds the movies one run requests (ENRICHMENT_STALENESS_BATCH).
	EnrichmentBatchDefault = 100
)

// Enrichments enqueues MovieEnrichmentRequested for at most limit stale movies, and
// PersonEnrichmentRequested for at most limit people requested before requestedWithin and still
// not enriched, and stamps them, in one transaction each, returning how many (*sqlite.Store).
type Enrichments interface {
	RequestStaleEnrichment(ctx context.Context, now time.Time, freshFor, missingRetry, requestedWithin time.Duration, limit int) (int, error)
	RequestStalePersonEnrichment(ctx context.Context, now time.Time, missingRetry, requestedWithin time.Duration, limit int) (int, error)
}

// EnrichmentRequester re-requests enrichment for movies whose profile is missing or older than
// enrichment.MovieFresh, and for people whose requested enrichment never came (a person page
// asks only once), a bounded batch of each per run. Only wire it when TMDb is configured:
// without it the requests would dead-letter for want of a handler.
type EnrichmentRequester struct {
	job
	store Enrichments
	batch int
}

// NewEnrichmentRequester builds the stale-enrichment requests; batch bounds one run (default
// EnrichmentBatchDefault).
func NewEnrichmentRequester(store Enrichments, batch int, cfg JobConfig) *EnrichmentRequester {
	return &EnrichmentRequester{job: newJob("enrichment-requester", cfg), store: store,
		batch: cmp.Or(batch, EnrichmentBatchDefault)}
}

// RunOnce requests enrichment for up to one batch of stale movies and one of people.
func (r *EnrichmentRequester) RunOnce(ctx context.Context) error {
	var movies, people int
	err := r.query(ctx, func(ctx context.Context) (err error) {
		movies, err = r.store.RequestStaleEnrichment(ctx, r.now(), enrichment.MovieFresh, enrichment.MissingRetry,
			EnrichmentRequestGap, r.batch)
		return err
	})
	if err != nil {
		return fmt.Errorf("enrichment requester: %w", err)
	}
	r.report(ctx, "stale movie enrichment requested", int64(movies))
	err = r.query(ctx, func(ctx context.Context) (err error) {
		people, err = r.store.RequestStalePersonEnrichment(ctx, r.now(), enrichment.MissingRetry, EnrichmentRequestGap, r.batch)
		return err
	})
	if err != nil {
		return fmt.Errorf("enrichment requester: %w", err)
	}
	r.report(ctx, "unanswered person enrichment requested again", int64(people))
	return nil
}
