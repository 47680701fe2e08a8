package movie

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// ResolutionName keys the background resolution in the processed-event ledger; never rename it.
const ResolutionName = "movie-resolution"

// ResolutionTypes are the events the background resolution handles.
var ResolutionTypes = []string{domain.MovieResolutionRequested{}.EventType()}

// ResolutionStore is the database side of the background resolution.
type ResolutionStore interface {
	// MovieByID is KindNotFound when the movie is gone.
	MovieByID(ctx context.Context, id uuid.UUID) (domain.Movie, error)
	// SaveMovieResolution records, in one transaction, that the manual movie id is the film
	// with externalID: it takes the external id (with MovieDiscovered and
	// MovieEnrichmentRequested) unless another movie holds it, when it is merged into that one
	// (MergeStore.MergeMovies), in the same transaction: one film, one movie. A movie gone or
	// resolved meanwhile is left alone.
	SaveMovieResolution(ctx context.Context, id uuid.UUID, externalID string, at time.Time) (ResolutionResult, error)
	// MarkMovieResolutionAttempt records a search without a confident match, so the requester
	// asks again only after ResolutionRetry.
	MarkMovieResolutionAttempt(ctx context.Context, id uuid.UUID, at time.Time) error
}

// ResolutionResult is what SaveMovieResolution did.
type ResolutionResult struct {
	// Resolved is true when the movie took the external id.
	Resolved bool
	// DuplicateOf is the movie that already held the external id; uuid.Nil when none did.
	DuplicateOf uuid.UUID
	// Merge is the merge into DuplicateOf (its DryRun set when nothing was written).
	Merge MergeResult
}

// Resolution is the worker's handler of MovieResolutionRequested: it resolves a movie typed in
// by hand through the provider's title search and the confident Match, as the request path
// would have within its budget. It is idempotent: it reads the movie's current state, and one
// resolved, marked or deleted meanwhile costs no more than a read. Its provider calls go through
// the provider client's pacer, shared with enrichment, so a backfill of thousands is paced.
type Resolution struct {
	store    ResolutionStore
	metadata Metadata
	now      func() time.Time
	log      *slog.Logger
}

// NewResolution builds the handler; now may be nil for time.Now.
func NewResolution(store ResolutionStore, metadata Metadata, now func() time.Time, log *slog.Logger) *Resolution {
	if now == nil {
		now = time.Now
	}
	return &Resolution{store: store, metadata: metadata, now: now, log: cmp.Or(log, slog.Default())}
}

// Handle resolves the event's movie. A provider failure is returned as it is classified
// (transient: retried with backoff; permanent, e.g. a refused key: dead-lettered with its error).
func (r *Resolution) Handle(ctx context.Context, e domain.Event) error {
	ev, ok := e.(domain.MovieResolutionRequested)
	if !ok {
		return domain.Permanent(fmt.Errorf("movie resolution: unexpected event %s", e.EventType()))
	}
	m, err := r.store.MovieByID(ctx, ev.MovieID)
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("movie resolution: %w", err)
	}
	if m.ExternalID != nil {
		return nil
	}
	w := Wanted{Title: m.Title, Year: m.ReleaseYear}
	if m.Director != nil {
		w.Director = *m.Director
	}
	c, v, err := MatchTitle(ctx, r.metadata, w)
	if err != nil {
		return fmt.Errorf("movie resolution: %w", err)
	}
	now := r.now().UTC()
	if !v.OK {
		r.log.InfoContext(ctx, "movie resolution: no confident match; the movie stays manual", "movie_id", m.ID,
			"title", m.Title, "year", m.ReleaseYear, "reason", v.Reason)
		return r.store.MarkMovieResolutionAttempt(ctx, m.ID, now)
	}
	res, err := r.store.SaveMovieResolution(ctx, m.ID, c.ExternalID(), now)
	if err != nil {
		return fmt.Errorf("movie resolution: %w", err)
	}
	switch {
	case res.Resolved:
		r.log.InfoContext(ctx, "movie resolution: resolved", "movie_id", m.ID, "external_id", c.ExternalID(), "title", c.Title)
	case res.DuplicateOf != uuid.Nil:
		r.log.InfoContext(ctx, "movie resolution: the film is already stored as another movie; merged into it",
			"movie_id", m.ID, "merged_into", res.DuplicateOf, "external_id", c.ExternalID(), "title", c.Title,
			"reviews", res.Merge.Reviews, "watchlist", res.Merge.Watchlist)
	}
	return nil
}
