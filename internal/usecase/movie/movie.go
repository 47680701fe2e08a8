package movie

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Catalog is the storage the movie pages and requests read and write.
type Catalog interface {
	MovieByID(ctx context.Context, id uuid.UUID) (domain.Movie, error)
	Movies(ctx context.Context, f Filter, p domain.Page) (domain.Paged[domain.Movie], error)
	MovieStats(ctx context.Context, id uuid.UUID) (Stats, error)
	MovieReviews(ctx context.Context, id uuid.UUID, p domain.Page) (domain.Paged[Viewing], error)
	// MovieProfile is the enrichment document; KindNotFound until the worker enriched the movie.
	MovieProfile(ctx context.Context, id uuid.UUID) (json.RawMessage, error)
	// MovieImages are the movie's backdrop and its cast's photos, TMDb's paths and stored keys.
	MovieImages(ctx context.Context, id uuid.UUID) (domain.MovieImages, error)
	Person(ctx context.Context, id uuid.UUID) (Person, error)
	PersonCredits(ctx context.Context, id uuid.UUID) ([]Credit, error)
	// Enqueue commits events that change nothing else.
	Enqueue(ctx context.Context, events ...domain.Event) error
	// RequestMovieEnrichment enqueues MovieEnrichmentRequested and stamps the movie as requested,
	// in one transaction, so the worker's staleness job does not ask for it again.
	RequestMovieEnrichment(ctx context.Context, id uuid.UUID, externalID string) error
	// RequestPersonEnrichment enqueues PersonEnrichmentRequested for a person never requested
	// and stamps them, in one transaction; a person requested already is left alone (the
	// staleness job retries). It reports whether it enqueued.
	RequestPersonEnrichment(ctx context.Context, id uuid.UUID, externalID string) (bool, error)
}

// Filter narrows GET /movies.
type Filter struct {
	Search   string // Search is a title substring.
	Genre    string
	Language string
}

// Stats summarise a movie's reviews.
type Stats struct {
	TotalCount     int
	AvgRating      *float64
	FederatedCount int
	Histogram      [5]int // Histogram counts ratings 1..5.
}

// Viewing is one review on a movie page.
type Viewing struct {
	UserDisplay string
	Review      domain.Review
}

// Person is someone in a movie's cast or crew, as enrichment stored them.
type Person struct {
	ID                 uuid.UUID
	ExternalID         string
	Name               string
	KnownForDepartment *string
	ProfilePath        *string // ProfilePath is TMDb's file path of their photo (what the API returns).
	PhotoKey           *string // PhotoKey is the stored photo's key, once the worker downloaded it.
	Biography          *string
	Birthday           *string
	Deathday           *string
	PlaceOfBirth       *string
	Homepage           *string
	IMDbID             *string
	Enriched           bool
	// EnrichmentRequested is true once enrichment was asked for (by a page read or the
	// staleness job).
	EnrichmentRequested bool
}

// Credit is a person's part in a movie.
type Credit struct {
	Movie      domain.Movie
	Cast       bool   // Cast is true for an acting credit, false for crew.
	Role       string // Role is the character (cast) or the job (crew).
	Department *string
}

// Details is the movie page.
type Details struct {
	Movie   domain.Movie
	Stats   Stats
	Reviews domain.Paged[Viewing]
}

// Service runs the movie queries and requests.
type Service struct {
	catalog Catalog
}

// NewService builds the service.
func NewService(catalog Catalog) *Service { return &Service{catalog: catalog} }

// List returns a page of movies.
func (s *Service) List(ctx context.Context, f Filter, p domain.Page) (domain.Paged[domain.Movie], error) {
	return s.catalog.Movies(ctx, f, p)
}

// Details returns a movie with its stats and a page of its reviews. The id of a movie merged into
// another answers that other movie (Details.Movie.ID differs from id: a page redirects).
func (s *Service) Details(ctx context.Context, id uuid.UUID, p domain.Page) (Details, error) {
	m, err := s.catalog.MovieByID(ctx, id)
	if err != nil {
		return Details{}, err
	}
	st, err := s.catalog.MovieStats(ctx, m.ID)
	if err != nil {
		return Details{}, err
	}
	rv, err := s.catalog.MovieReviews(ctx, m.ID, p)
	if err != nil {
		return Details{}, err
	}
	return Details{Movie: m, Stats: st, Reviews: rv}, nil
}

// Profile returns the enrichment document of a movie (the movie a merged one's id names);
// KindNotFound until it is enriched.
func (s *Service) Profile(ctx context.Context, id uuid.UUID) (json.RawMessage, error) {
	doc, err := s.catalog.MovieProfile(ctx, id)
	if !errors.Is(err, domain.ErrNotFound) {
		return doc, err
	}
	if m, merr := s.catalog.MovieByID(ctx, id); merr == nil && m.ID != id {
		return s.catalog.MovieProfile(ctx, m.ID)
	}
	return doc, err
}

// Images returns the movie's backdrop and its cast's photos as stored (the keys the pages show).
func (s *Service) Images(ctx context.Context, id uuid.UUID) (domain.MovieImages, error) {
	return s.catalog.MovieImages(ctx, id)
}

// SyncPoster asks the worker to fetch the movie's metadata and poster again. It only enqueues:
// the fetch happens in the worker. A movie without an external id has nothing to fetch from.
func (s *Service) SyncPoster(ctx context.Context, id uuid.UUID) error {
	m, err := s.catalog.MovieByID(ctx, id)
	if err != nil {
		return err
	}
	if m.ExternalID == nil {
		return domain.Errorf(domain.KindConflict, "movie %s has no external id to fetch a poster for", id)
	}
	return s.catalog.RequestMovieEnrichment(ctx, m.ID, *m.ExternalID)
}

// Person returns a person. The first read of a person not yet enriched asks the worker to
// enrich them; later reads only read (a request that came to nothing is the worker's staleness
// job's to retry), so a page read does not write.
func (s *Service) Person(ctx context.Context, id uuid.UUID) (Person, error) {
	p, err := s.catalog.Person(ctx, id)
	if err != nil {
		return Person{}, err
	}
	if !p.Enriched && !p.EnrichmentRequested {
		if _, err := s.catalog.RequestPersonEnrichment(ctx, p.ID, p.ExternalID); err != nil {
			return Person{}, fmt.Errorf("request person enrichment: %w", err)
		}
		p.EnrichmentRequested = true
	}
	return p, nil
}

// Credits returns a person and their credits.
func (s *Service) Credits(ctx context.Context, id uuid.UUID) (Person, []Credit, error) {
	p, err := s.Person(ctx, id)
	if err != nil {
		return Person{}, nil, err
	}
	c, err := s.catalog.PersonCredits(ctx, id)
	return p, c, err
}
