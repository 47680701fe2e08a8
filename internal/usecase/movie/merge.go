package movie

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// MergeResult is what a merge of one movie into another did, or would do (DryRun).
type MergeResult struct {
	From uuid.UUID `json:"from"`
	Into uuid.UUID `json:"into"`
	// Reviews is how many reviews moved to Into; Announced how many of them are local and
	// announced, each with ReviewUpdated (federation sends an Update).
	Reviews   int `json:"reviews"`
	Announced int `json:"announced"`
	// Watchlist is how many watchlist entries moved; WatchlistKept how many users had the film
	// under both movies and keep Into's entry alone.
	Watchlist     int `json:"watchlist"`
	WatchlistKept int `json:"watchlist_kept"`
	// WatchEvents is how many watch-queue items now name Into.
	WatchEvents int `json:"watch_events"`
	// ExternalID is the external id Into took from From (Into had none); "" when none moved.
	ExternalID string `json:"external_id,omitempty"`
	// AlreadyMerged is true when From had been merged into Into before: nothing was done.
	AlreadyMerged bool `json:"already_merged,omitempty"`
	DryRun        bool `json:"dry_run,omitempty"`
}

// MergeStore is the database side of the operators' curation of the catalogue.
type MergeStore interface {
	// MergeMovies merges from into into (following into's redirect, if it was merged itself),
	// in one transaction: from's reviews, watchlist entries and watch-queue items move to into,
	// a user with both entries keeps one, from is deleted and its id redirects to into; with
	// MoviesMerged, MovieDeleted, ReviewUpdated of each announced local review and the
	// watchlist's events. A from merged into into already is AlreadyMerged; a from that is no
	// movie is KindNotFound; from and into the same movie is KindInvalid. With dryRun it
	// changes nothing and reports what it would do.
	MergeMovies(ctx context.Context, from, into uuid.UUID, at time.Time, dryRun bool) (MergeResult, error)
	// ResolveMovie gives the movie id the external id by hand (see ResolutionStore's
	// SaveMovieResolution: a film already stored is merged into). A movie that has another
	// external id already is KindConflict; one gone is KindNotFound.
	ResolveMovie(ctx context.Context, id uuid.UUID, externalID string, at time.Time, dryRun bool) (ResolutionResult, error)
	// UnresolvedMovies are movies without an external id, oldest first, at most limit.
	UnresolvedMovies(ctx context.Context, limit int) ([]Unresolved, error)
	// CatalogEntries are every movie's id, title, year and external id, and its duplicate_of
	// mark; what Duplicates groups.
	CatalogEntries(ctx context.Context) ([]CatalogEntry, error)
}

// Unresolved is a movie without an external id, as the operators' listing shows it.
type Unresolved struct {
	Movie       domain.Movie `json:"movie"`
	Reviews     int          `json:"reviews"`
	RequestedAt *time.Time   `json:"resolution_requested_at,omitempty"`
	AttemptedAt *time.Time   `json:"resolution_attempted_at,omitempty"`
	DuplicateOf *uuid.UUID   `json:"duplicate_of,omitempty"`
}

// CatalogEntry is a movie's identity.
type CatalogEntry struct {
	ID          uuid.UUID
	Title       string
	Year        int
	ExternalID  *string
	DuplicateOf *uuid.UUID
}

// Duplicate is a set of movies that may be one film.
type Duplicate struct {
	// Reason is "duplicate_of" (resolution found the film stored as another movie) or
	// "title_year" (the same normalised title and year).
	Reason string         `json:"reason"`
	Movies []CatalogEntry `json:"movies"`
}

// Curation is the operators' tool for one film, one movie: it lists unresolved movies and
// possible duplicates, and merges or resolves movies by hand.
type Curation struct {
	store MergeStore
	now   func() time.Time
}

// NewCuration builds the tool; now may be nil for time.Now.
func NewCuration(store MergeStore, now func() time.Time) *Curation {
	if now == nil {
		now = time.Now
	}
	return &Curation{store: store, now: now}
}

// Unresolved lists at most limit movies without an external id.
func (c *Curation) Unresolved(ctx context.Context, limit int) ([]Unresolved, error) {
	if limit < 1 {
		return nil, domain.Errorf(domain.KindInvalid, "the limit must be at least 1")
	}
	return c.store.UnresolvedMovies(ctx, limit)
}

// Duplicates lists the movies marked duplicate_of another, each with that movie, then the
// groups of movies with the same normalised title (case, accents, punctuation and leading
// articles aside) and year, at least one of them manual: two films with different external ids
// are two films, whatever their titles.
func (c *Curation) Duplicates(ctx context.Context) ([]Duplicate, error) {
	all, err := c.store.CatalogEntries(ctx)
	if err != nil {
		return nil, err
	}
	byID := make(map[uuid.UUID]CatalogEntry, len(all))
	for _, e := range all {
		byID[e.ID] = e
	}
	var out []Duplicate
	groups := map[string][]CatalogEntry{}
	var keys []string
	for _, e := range all {
		if e.DuplicateOf != nil {
			if into, ok := byID[*e.DuplicateOf]; ok {
				out = append(out, Duplicate{Reason: "duplicate_of", Movies: []CatalogEntry{e, into}})
			}
		}
		k := Normalize(e.Title) + "\x00" + strconv.Itoa(e.Year)
		if len(groups[k]) == 0 {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], e)
	}
	slices.Sort(keys)
	for _, k := range keys {
		g := groups[k]
		manual := slices.ContainsFunc(g, func(e CatalogEntry) bool { return e.ExternalID == nil })
		if len(g) > 1 && manual {
			out = append(out, Duplicate{Reason: "title_year", Movies: g})
		}
	}
	return out, nil
}

// Merge merges the movie from into the movie into (see MergeStore.MergeMovies).
func (c *Curation) Merge(ctx context.Context, from, into uuid.UUID, dryRun bool) (MergeResult, error) {
	if from == uuid.Nil || into == uuid.Nil {
		return MergeResult{}, domain.Errorf(domain.KindInvalid, "a merge needs two movie ids")
	}
	if from == into {
		return MergeResult{}, domain.Errorf(domain.KindInvalid, "movie %s cannot be merged into itself", from)
	}
	return c.store.MergeMovies(ctx, from, into, c.now().UTC(), dryRun)
}

// Resolve gives a movie an external id by hand ("tmdb:N" or an IMDb id "tt…"); a film stored
// under it already is merged into instead.
func (c *Curation) Resolve(ctx context.Context, id uuid.UUID, externalID string, dryRun bool) (ResolutionResult, error) {
	ext, err := domain.NormalizeExternalID(externalID)
	if err != nil {
		return ResolutionResult{}, err
	}
	if ext == "" {
		return ResolutionResult{}, domain.Errorf(domain.KindInvalid, "an external id is required (tmdb:N or tt…)")
	}
	res, err := c.store.ResolveMovie(ctx, id, ext, c.now().UTC(), dryRun)
	if err != nil {
		return ResolutionResult{}, fmt.Errorf("resolve movie %s: %w", id, err)
	}
	return res, nil
}
