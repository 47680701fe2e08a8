// Package search is full-text search over the local index of movies and people: the query the
// API serves, the reindex request, and the worker's handlers that keep the index in step.
package search

import (
	"context"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Query is GET /api/v1/search: free text plus filters. The movie filters (genre, year,
// language, person) narrow the movies; Department narrows the people.
type Query struct {
	Text       string
	Genre      string
	Language   string
	Department string
	Year       *int
	PersonID   *uuid.UUID
	Page       domain.Page
}

// MovieHit is a movie found.
type MovieHit struct {
	ID          uuid.UUID
	Title       string
	ReleaseYear int
	Director    *string
	PosterPath  *string
	Genres      []string
}

// PersonHit is a person found, with a few titles they are known for.
type PersonHit struct {
	ID                 uuid.UUID
	Name               string
	KnownForDepartment *string
	ProfilePath        *string
	KnownForTitles     []string
}

// Results are both lists, each paged with the query's page.
type Results struct {
	Movies domain.Paged[MovieHit]
	People domain.Paged[PersonHit]
}

// Reader runs queries over the index.
type Reader interface {
	SearchMovies(ctx context.Context, q Query) (domain.Paged[MovieHit], error)
	SearchPeople(ctx context.Context, q Query) (domain.Paged[PersonHit], error)
}

// Requests is what the reindex request needs: who asks, and the outbox.
type Requests interface {
	UserByID(ctx context.Context, id uuid.UUID) (domain.User, error)
	// Enqueue commits events that change nothing else.
	Enqueue(ctx context.Context, events ...domain.Event) error
}

// Service runs searches and reindex requests.
type Service struct {
	reader   Reader
	requests Requests
}

// NewService builds the service.
func NewService(reader Reader, requests Requests) *Service {
	return &Service{reader: reader, requests: requests}
}

// Search returns the movies and the people matching q.
func (s *Service) Search(ctx context.Context, q Query) (Results, error) {
	if q.Year != nil && (*q.Year < 0 || *q.Year > domain.MaxReleaseYear) {
		return Results{}, domain.Invalid("year must be between 0 and %d", domain.MaxReleaseYear)
	}
	movies, err := s.reader.SearchMovies(ctx, q)
	if err != nil {
		return Results{}, err
	}
	people, err := s.reader.SearchPeople(ctx, q)
	if err != nil {
		return Results{}, err
	}
	return Results{Movies: movies, People: people}, nil
}

// RequestReindex asks the worker to rebuild the index; only an admin may.
func (s *Service) RequestReindex(ctx context.Context, caller uuid.UUID) error {
	u, err := s.requests.UserByID(ctx, caller)
	if err != nil {
		if domain.KindOf(err) == domain.KindNotFound {
			return domain.Errorf(domain.KindUnauthorized, "Unauthorized: unknown user")
		}
		return err
	}
	if u.Role != domain.RoleAdmin {
		return domain.Forbidden("Forbidden: admin only")
	}
	return s.requests.Enqueue(ctx, domain.SearchReindexRequested{})
}
