// Package movie is the movie use cases: resolving what a client names into a movie, the movie
// pages and people, and the requests that send a movie to the worker (enrichment, poster sync).
package movie

import (
	"context"
	"errors"
	"log/slog"

	"moviesdiary/internal/domain"
)

// Metadata is a movie metadata provider (TMDb). A nil Metadata means none is configured: movies
// are then resolved from the database and the manual fields only.
type Metadata interface {
	// LookupMovie returns the title, year and details of the movie with that external id; the
	// id fields of the result are ignored.
	LookupMovie(ctx context.Context, externalID string) (domain.Movie, error)
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

// Resolver turns a Request into a movie to store or reuse.
type Resolver struct {
	lookup   Lookup
	metadata Metadata
	log      *slog.Logger
}

// NewResolver builds a resolver; metadata may be nil.
func NewResolver(lookup Lookup, metadata Metadata, log *slog.Logger) *Resolver {
	if log == nil {
		log = slog.Default()
	}
	return &Resolver{lookup: lookup, metadata: metadata, log: log}
}

// Resolve returns the movie a request names. With an external id: the stored movie, else the
// provider's answer, else the manual fields, with id MovieIDFor(external id). Without one: a
// movie from the manual fields with a nil id, which the repository matches on title, year (and
// director) or creates.
func (r *Resolver) Resolve(ctx context.Context, req Request) (domain.Movie, error) {
	ext, err := domain.NormalizeExternalID(req.ExternalID)
	if err != nil {
		return domain.Movie{}, err
	}
	if ext == "" {
		return r.manual(req)
	}
	m, err := r.lookup.MovieByExternalID(ctx, ext)
	if err == nil {
		return m, nil
	}
	if !errors.Is(err, domain.ErrNotFound) {
		return domain.Movie{}, err
	}
	if r.metadata != nil {
		m, err := r.metadata.LookupMovie(ctx, ext)
		if err == nil && m.Title != "" {
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

func (r *Resolver) manual(req Request) (domain.Movie, error) {
	title := ""
	if req.ManualTitle != nil {
		title = *req.ManualTitle
	}
	return domain.NewManualMovie(title, req.ManualYear, req.ManualDirector)
}
