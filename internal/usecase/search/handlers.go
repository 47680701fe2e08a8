package search

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Handler names key the processed-event ledger; never rename them.
const (
	IndexName   = "search-index"
	CleanupName = "search-cleanup"
	ReindexName = "search-reindex"
)

// Handler types.
var (
	IndexTypes   = []string{domain.MovieDiscovered{}.EventType(), domain.ReviewLogged{}.EventType(), domain.MoviesMerged{}.EventType()}
	CleanupTypes = []string{domain.MovieDeleted{}.EventType()}
	ReindexTypes = []string{domain.SearchReindexRequested{}.EventType()}
)

// ReindexPageDefault is how many movies or people one reindex transaction covers.
const ReindexPageDefault = 500

// Index is the index's write side. Every write is a keyed upsert or delete, built from the
// current rows (never from an event's payload), so it can run any number of times, in any order
// and concurrently.
type Index interface {
	// IndexMovie upserts the movie's document and those of its credited people; a movie that is
	// gone has none. With onlyIfMissing a movie already indexed is left as it is.
	IndexMovie(ctx context.Context, id uuid.UUID, onlyIfMissing bool) error
	// RemoveMovie deletes the movie's document and those of people left with no credit.
	RemoveMovie(ctx context.Context, id uuid.UUID) error
	// Reindex rebuilds every document, page transactions at a time.
	Reindex(ctx context.Context, page int) error
}

// Handlers keep the index in step with the events.
type Handlers struct {
	index Index
}

// NewHandlers builds the handlers.
func NewHandlers(index Index) *Handlers { return &Handlers{index: index} }

// Index indexes a discovered movie (bare, or full if it is already enriched), and a reviewed
// movie not indexed yet (movies typed in by hand and federated ones are never "discovered"), and
// the movie another was merged into (the merged one's document went with it: MovieDeleted).
func (h *Handlers) Index(ctx context.Context, e domain.Event) error {
	switch ev := e.(type) {
	case domain.MovieDiscovered:
		return h.index.IndexMovie(ctx, ev.MovieID, false)
	case domain.ReviewLogged:
		return h.index.IndexMovie(ctx, ev.MovieID, true)
	case domain.MoviesMerged:
		return h.index.IndexMovie(ctx, ev.Into, false)
	}
	return domain.Permanent(fmt.Errorf("search index: unexpected event %s", e.EventType()))
}

// Cleanup removes a deleted movie and the people it leaves without credits.
func (h *Handlers) Cleanup(ctx context.Context, e domain.Event) error {
	ev, ok := e.(domain.MovieDeleted)
	if !ok {
		return domain.Permanent(fmt.Errorf("search cleanup: unexpected event %s", e.EventType()))
	}
	return h.index.RemoveMovie(ctx, ev.MovieID)
}

// Reindex rebuilds the whole index. Two reindexes at once (two requests, two workers) only
// repeat each other's upserts.
func (h *Handlers) Reindex(ctx context.Context, _ domain.Event) error {
	return h.index.Reindex(ctx, ReindexPageDefault)
}
