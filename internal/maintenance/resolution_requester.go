package maintenance

import (
	"cmp"
	"context"
	"fmt"
	"time"
)

// Settings of the resolution requests.
const (
	// ResolutionRequestGap is how long a requested movie is left alone before it is requested
	// again when no attempt came of it (a worker without a TMDb key delivered the request to no
	// handler).
	ResolutionRequestGap = 24 * time.Hour
	// ResolutionRetry is how long a movie the provider had no confident match for is left alone:
	// the provider's catalogue grows, so it is asked again, rarely.
	ResolutionRetry = 30 * 24 * time.Hour
	// ResolutionBatchDefault bounds the movies one run requests. The handler's provider calls
	// are paced by the client (40 a second by default), so a batch of 100 an hour resolves an old
	// database of thousands of manual movies within days without crowding out enrichment.
	ResolutionBatchDefault = 100
)

// Resolutions enqueues MovieResolutionRequested for at most limit unresolved movies and stamps
// them, in one transaction, returning how many (*sqlstore.Store).
type Resolutions interface {
	RequestMovieResolutions(ctx context.Context, now time.Time, retryAfter, requestedWithin time.Duration, limit int) (int, error)
}

// ResolutionRequester requests the background resolution of movies typed in by hand: the ones
// stored before resolution existed (or adopted from an old database), the ones whose request
// came to nothing, and, after ResolutionRetry, the ones the provider had no match for. New manual
// movies are requested when they are stored; this job is the backfill and the safety net. Only
// wire it when TMDb is configured.
type ResolutionRequester struct {
	job
	store Resolutions
	batch int
}

// NewResolutionRequester builds the job; batch bounds one run (default ResolutionBatchDefault).
func NewResolutionRequester(store Resolutions, batch int, cfg JobConfig) *ResolutionRequester {
	return &ResolutionRequester{job: newJob("resolution-requester", cfg), store: store, batch: cmp.Or(batch, ResolutionBatchDefault)}
}

// RunOnce requests resolution for up to one batch of unresolved movies.
func (r *ResolutionRequester) RunOnce(ctx context.Context) error {
	var n int
	err := r.query(ctx, func(ctx context.Context) (err error) {
		n, err = r.store.RequestMovieResolutions(ctx, r.now(), ResolutionRetry, ResolutionRequestGap, r.batch)
		return err
	})
	if err != nil {
		return fmt.Errorf("resolution requester: %w", err)
	}
	r.report(ctx, "movie resolution requested", int64(n))
	return nil
}
