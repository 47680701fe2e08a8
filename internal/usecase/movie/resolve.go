// Package movie is the movie use cases: resolving what a client names into a movie, the movie
// pages and people, and the requests that send a movie to the worker (enrichment, poster sync).
package movie

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"moviesdiary/internal/domain"
)

// Metadata is a movie metadata provider (TMDb). A nil Metadata means none is configured: movies
// are then resolved from the database and the manual fields only.
type Metadata interface {
	// LookupMovie returns the title, year and details of the movie with that external id; the
	// id fields of the result are ignored.
	LookupMovie(ctx context.Context, externalID string) (domain.Movie, error)
	// SearchMovies returns the provider's first page of films for a title, best first; a Year
	// narrows it to films released that year.
	SearchMovies(ctx context.Context, q TitleQuery) ([]Candidate, error)
	// FindIMDb returns the provider's film with an IMDb id ("tt…"); an error matching
	// domain.ErrNotFound when it knows none.
	FindIMDb(ctx context.Context, imdbID string) (Candidate, error)
}

// TitleQuery is a title search.
type TitleQuery struct {
	Title    string
	Year     int    // Year narrows to films released that year; 0 searches every year.
	Language string // Language is the answer's language (ISO 639-1); "" for the provider's default.
}

// Lookup finds stored movies by external id.
type Lookup interface {
	MovieByExternalID(ctx context.Context, externalID string) (domain.Movie, error)
}

// Request names a movie the way POST /reviews and POST /watchlist do: an external id, or manual
// fields, or both (the manual fields are the fallback).
type Request struct {
	ExternalID     string
	ManualTitle    *string
	ManualYear     *int
	ManualDirector *string
}

// ResolveBudgetDefault is how long Resolve waits on the metadata provider before it stores the
// manual movie and leaves resolution to the worker.
const ResolveBudgetDefault = time.Second

// Resolver turns a Request into a movie to store or reuse.
type Resolver struct {
	lookup   Lookup
	metadata Metadata
	log      *slog.Logger
	budget   time.Duration
}

// NewResolver builds a resolver; metadata may be nil. It waits ResolveBudgetDefault at most on
// the provider (WithBudget changes it).
func NewResolver(lookup Lookup, metadata Metadata, log *slog.Logger) *Resolver {
	if log == nil {
		log = slog.Default()
	}
	return &Resolver{lookup: lookup, metadata: metadata, log: log, budget: ResolveBudgetDefault}
}

// WithBudget returns a copy of the resolver that waits at most d on the provider per Resolve;
// zero or less takes ResolveBudgetDefault.
func (r *Resolver) WithBudget(d time.Duration) *Resolver {
	c := *r
	c.budget = d
	if d <= 0 {
		c.budget = ResolveBudgetDefault
	}
	return &c
}

// Resolve returns the movie a request names.
//
// With an external id: the stored movie; else, for an IMDb id, the movie stored under the TMDb
// id TMDb gives it (one film, one movie, whichever id named it first); else the provider's
// answer, else the manual fields, with id MovieIDFor(external id).
//
// Without one: the manual fields are validated, then the provider is searched by title and
// year, and a confident Match (never a guess) becomes the movie's identity, "tmdb:N": the movie
// stored under it, or a new one. Otherwise, or when the provider fails or takes longer than the
// budget, it is the manual movie with a nil id, which the repository matches on title, year (and
// director) or creates, flagged unresolved (no external id) for the worker to resolve later.
// A provider outage never fails a Resolve that has manual fields.
func (r *Resolver) Resolve(ctx context.Context, req Request) (domain.Movie, error) {
	ext, err := domain.NormalizeExternalID(req.ExternalID)
	if err != nil {
		return domain.Movie{}, err
	}
	if ext == "" {
		return r.byTitle(ctx, req)
	}
	m, err := r.lookup.MovieByExternalID(ctx, ext)
	if err == nil {
		return m, nil
	}
	if !errors.Is(err, domain.ErrNotFound) {
		return domain.Movie{}, err
	}
	if r.metadata != nil {
		pctx, cancel := context.WithTimeout(ctx, r.budget)
		m, stored, err := r.lookupExternal(pctx, ext)
		cancel()
		switch {
		case stored:
			return m, nil
		case err == nil && m.Title != "":
			m.ID, m.ExternalID = domain.MovieIDFor(ext), &ext
			return m, nil
		}
		r.log.WarnContext(ctx, "movie metadata lookup failed; using the manual fields", "external_id", ext, "error", err)
	}
	m, err = r.manual(req)
	if err != nil {
		return domain.Movie{}, err
	}
	m.ID, m.ExternalID = domain.MovieIDFor(ext), &ext
	return m, nil
}

// lookupExternal asks the provider about an external id not stored. An IMDb id is first found
// on TMDb: a movie stored under that TMDb id is returned with stored set.
func (r *Resolver) lookupExternal(ctx context.Context, ext string) (domain.Movie, bool, error) {
	details := ext
	if strings.HasPrefix(ext, "tt") {
		c, err := r.metadata.FindIMDb(ctx, ext)
		if err != nil {
			return domain.Movie{}, false, err
		}
		m, err := r.lookup.MovieByExternalID(ctx, c.ExternalID())
		if err == nil {
			return m, true, nil
		}
		if !errors.Is(err, domain.ErrNotFound) {
			return domain.Movie{}, false, err
		}
		details = c.ExternalID()
	}
	m, err := r.metadata.LookupMovie(ctx, details)
	return m, false, err
}

// byTitle resolves a request without an external id (see Resolve).
func (r *Resolver) byTitle(ctx context.Context, req Request) (domain.Movie, error) {
	m, err := r.manual(req)
	if err != nil || r.metadata == nil {
		return m, err
	}
	w := Wanted{Title: m.Title, Year: m.ReleaseYear}
	if m.Director != nil {
		w.Director = *m.Director
	}
	pctx, cancel := context.WithTimeout(ctx, r.budget)
	c, v, err := MatchTitle(pctx, r.metadata, w)
	cancel()
	if err != nil {
		r.log.InfoContext(ctx, "title resolution failed or ran out of time; storing the manual movie for the worker to resolve",
			"title", m.Title, "year", m.ReleaseYear, "error", err)
		return m, nil
	}
	if !v.OK {
		r.log.DebugContext(ctx, "no confident title match; storing the manual movie", "title", m.Title, "year", m.ReleaseYear,
			"reason", v.Reason)
		return m, nil
	}
	ext := c.ExternalID()
	stored, err := r.lookup.MovieByExternalID(ctx, ext)
	if err == nil {
		return stored, nil
	}
	if !errors.Is(err, domain.ErrNotFound) {
		return domain.Movie{}, err
	}
	return c.Movie(m.Director), nil
}

// Movie is the new movie a confident match stores: its identity and the provider's title and
// year; director is the one given, else the one the match learnt. Enrichment fills the rest.
func (c Candidate) Movie(director *string) domain.Movie {
	ext := c.ExternalID()
	m := domain.Movie{ID: domain.MovieIDFor(ext), ExternalID: &ext, Title: c.Title, ReleaseYear: c.Year, Genres: []string{},
		Director: director}
	if m.Director == nil && len(c.Directors) > 0 && c.Directors[0] != "" {
		d := c.Directors[0]
		m.Director = &d
	}
	return m
}

func (r *Resolver) manual(req Request) (domain.Movie, error) {
	title := ""
	if req.ManualTitle != nil {
		title = *req.ManualTitle
	}
	return domain.NewManualMovie(title, req.ManualYear, req.ManualDirector)
}
