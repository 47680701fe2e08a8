package movie

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"moviesdiary/internal/domain"
)

// FindBudgetDefault is how long Find waits on the provider: a person is waiting for the page,
// and a slow provider costs them the remote half of the results, never the page.
const FindBudgetDefault = 3 * time.Second

// ErrNoProvider is Find's answer when no metadata provider is configured.
var ErrNoProvider = errors.New("movie: no metadata provider configured")

// Found is one of the provider's films a title search lists for a person to pick, with the
// movie already stored under its external id, if any (picking it then names that movie).
type Found struct {
	Candidate
	Stored *domain.Movie
}

// Finder is the title search behind the log form's results: the provider's films for what a
// person typed, for them to pick from. Unlike Resolve it never decides: it lists.
type Finder struct {
	lookup   Lookup
	metadata Metadata
	budget   time.Duration
}

// NewFinder builds a finder; a nil metadata makes Find answer ErrNoProvider. It waits
// FindBudgetDefault at most on the provider.
func NewFinder(lookup Lookup, metadata Metadata) *Finder {
	return &Finder{lookup: lookup, metadata: metadata, budget: FindBudgetDefault}
}

// WithBudget returns a copy of the finder that waits at most d on the provider; zero or less
// takes FindBudgetDefault.
func (f *Finder) WithBudget(d time.Duration) *Finder {
	c := *f
	c.budget = d
	if d <= 0 {
		c.budget = FindBudgetDefault
	}
	return &c
}

// Enabled reports whether a provider is configured.
func (f *Finder) Enabled() bool { return f != nil && f.metadata != nil }

// Find returns the provider's first page of films for a title, narrowed to a year when q.Year
// is set, best first, each with the stored movie of its external id. A provider failure or a
// search over the budget is returned wrapped: the caller shows what it has without it.
func (f *Finder) Find(ctx context.Context, q TitleQuery) ([]Found, error) {
	if !f.Enabled() {
		return nil, ErrNoProvider
	}
	q.Title = strings.TrimSpace(q.Title)
	if q.Title == "" {
		return nil, domain.Invalid("Type a title to search for.")
	}
	if q.Year != 0 && (q.Year < domain.MinReleaseYear || q.Year > domain.MaxReleaseYear) {
		return nil, domain.Invalid("The year must be between %d and %d.", domain.MinReleaseYear, domain.MaxReleaseYear)
	}
	pctx, cancel := context.WithTimeout(ctx, f.budget)
	cands, err := f.metadata.SearchMovies(pctx, q)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("provider search %q: %w", q.Title, err)
	}
	out := make([]Found, 0, len(cands))
	for _, c := range cands {
		if c.TMDbID <= 0 || strings.TrimSpace(c.Title) == "" {
			continue
		}
		fd := Found{Candidate: c}
		m, err := f.lookup.MovieByExternalID(ctx, c.ExternalID())
		switch {
		case err == nil:
			fd.Stored = &m
		case !errors.Is(err, domain.ErrNotFound):
			return nil, err
		}
		out = append(out, fd)
	}
	return out, nil
}
