package enrichment

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// MovieName keys the movie enrichment in the processed-event ledger; never rename it.
const MovieName = "movie-enrichment"

// MovieTypes are the events the movie enrichment handles.
var MovieTypes = []string{domain.MovieEnrichmentRequested{}.EventType()}

// MovieStore is the database side of the movie enrichment.
type MovieStore interface {
	// MovieEnrichmentState is KindNotFound when the movie is gone.
	MovieEnrichmentState(ctx context.Context, id uuid.UUID) (State, error)
	// SaveMovieEnrichment writes e in one transaction, the profile last (it marks the movie
	// enriched), with MovieImagesRequested; a movie deleted meanwhile is left alone.
	SaveMovieEnrichment(ctx context.Context, e MovieEnrichment) error
	// MarkMovieMissing records that the provider does not know the movie.
	MarkMovieMissing(ctx context.Context, id uuid.UUID, at time.Time) error
}

// MovieSource is the provider's movie lookup; an unknown movie is an error matching
// domain.ErrNotFound.
type MovieSource interface {
	Movie(ctx context.Context, externalID string) (Movie, error)
}

// Movies is the movie enrichment handler.
type Movies struct {
	store  MovieStore
	source MovieSource
	now    func() time.Time
	log    *slog.Logger
}

// NewMovies builds the handler; now may be nil for time.Now.
func NewMovies(store MovieStore, source MovieSource, now func() time.Time, log *slog.Logger) *Movies {
	if now == nil {
		now = time.Now
	}
	return &Movies{store: store, source: source, now: now, log: cmp.Or(log, slog.Default())}
}

// Handle enriches the event's movie. A fresh profile (or a recent "TMDb does not know it")
// answers without calling the provider. Everything is written in one transaction of upserts
// ending with the profile, so a crash anywhere leaves either the old state (the next delivery
// redoes it all) or the new one (the next delivery sees a fresh profile and stops).
func (m *Movies) Handle(ctx context.Context, e domain.Event) error {
	ev, ok := e.(domain.MovieEnrichmentRequested)
	if !ok {
		return domain.Permanent(fmt.Errorf("movie enrichment: unexpected event %s", e.EventType()))
	}
	now := m.now().UTC()
	return enrich(now, MovieFresh,
		func() (State, error) { return m.store.MovieEnrichmentState(ctx, ev.MovieID) },
		func() (Movie, error) { return m.source.Movie(ctx, ev.ExternalMetadataID) },
		func(d Movie) error {
			enr, err := BuildMovie(ev.MovieID, d, now)
			if err != nil {
				return err
			}
			return m.store.SaveMovieEnrichment(ctx, enr)
		},
		func() error {
			m.log.InfoContext(ctx, "movie enrichment: TMDb does not know the movie; not asked again for 30 days",
				"movie_id", ev.MovieID, "external_id", ev.ExternalMetadataID)
			return m.store.MarkMovieMissing(ctx, ev.MovieID, now)
		})
}

type castDoc struct {
	PersonID     uuid.UUID `json:"person_id"`
	TMDbPersonID int64     `json:"tmdb_person_id"`
	Name         string    `json:"name"`
	Character    string    `json:"character"`
	BillingOrder int       `json:"billing_order"`
	ProfilePath  *string   `json:"profile_path"`
}

type crewDoc struct {
	PersonID     uuid.UUID `json:"person_id"`
	TMDbPersonID int64     `json:"tmdb_person_id"`
	Name         string    `json:"name"`
	Job          string    `json:"job"`
	Department   string    `json:"department"`
	ProfilePath  *string   `json:"profile_path"`
}

// profileDoc is the GET /api/v1/movies/{id}/profile document, as the original API shaped it.
type profileDoc struct {
	TMDbID           int64     `json:"tmdb_id"`
	IMDbID           *string   `json:"imdb_id"`
	Overview         *string   `json:"overview"`
	Tagline          *string   `json:"tagline"`
	RuntimeMinutes   *int      `json:"runtime_minutes"`
	BudgetUSD        *int64    `json:"budget_usd"`
	RevenueUSD       *int64    `json:"revenue_usd"`
	VoteAverage      *float64  `json:"vote_average"`
	VoteCount        *int64    `json:"vote_count"`
	OriginalLanguage *string   `json:"original_language"`
	CollectionName   *string   `json:"collection_name"`
	BackdropPath     *string   `json:"backdrop_path"` // TMDb's file path, like the cast's profile_path
	Genres           []Named   `json:"genres"`
	Keywords         []Named   `json:"keywords"`
	Cast             []castDoc `json:"cast"`
	Crew             []crewDoc `json:"crew"`
	EnrichedAt       string    `json:"enriched_at"`
}

// BuildMovie turns the provider's answer into what the enrichment writes: the first MaxCast
// actors by billing and the first MaxCrew crew credits, their people, and the profile document.
func BuildMovie(id uuid.UUID, d Movie, now time.Time) (MovieEnrichment, error) {
	e := MovieEnrichment{MovieID: id, Genres: []string{}, Runtime: d.Runtime, OriginalLanguage: nonEmpty(d.OriginalLanguage),
		Overview: nonEmpty(d.Overview), Collection: nonEmpty(d.Collection), BackdropPath: nonEmpty(d.BackdropPath),
		EnrichedAt: now}
	doc := profileDoc{TMDbID: d.TMDbID, IMDbID: nonEmpty(d.IMDbID), Overview: e.Overview, Tagline: nonEmpty(d.Tagline),
		RuntimeMinutes: d.Runtime, BudgetUSD: positive(d.Budget), RevenueUSD: positive(d.Revenue),
		VoteCount: positive(d.VoteCount), OriginalLanguage: e.OriginalLanguage, CollectionName: e.Collection,
		BackdropPath: e.BackdropPath, Genres: append([]Named{}, d.Genres...), Keywords: append([]Named{}, d.Keywords...),
		Cast: []castDoc{}, Crew: []crewDoc{}, EnrichedAt: now.Format(time.RFC3339)}
	if d.VoteCount > 0 {
		doc.VoteAverage = &d.VoteAverage
	}
	for _, g := range d.Genres {
		e.Genres = append(e.Genres, g.Name)
	}
	seen := map[uuid.UUID]bool{}
	person := func(tmdbID int64, name, dept, profile string) uuid.UUID {
		pid := PersonID(tmdbID)
		if !seen[pid] {
			seen[pid] = true
			e.People = append(e.People, PersonRow{ID: pid, ExternalID: personExternalID(tmdbID), Name: name,
				KnownForDepartment: nonEmpty(dept), ProfilePath: nonEmpty(profile)})
		}
		return pid
	}
	for _, c := range d.Cast {
		if len(doc.Cast) == MaxCast {
			break
		}
		if c.TMDbID <= 0 || c.Name == "" {
			continue
		}
		pid := person(c.TMDbID, c.Name, cmp.Or(c.KnownForDepartment, "Acting"), c.ProfilePath)
		order := c.Order
		e.Credits = append(e.Credits, CreditRow{PersonID: pid, Cast: true, Role: c.Character, Order: &order})
		doc.Cast = append(doc.Cast, castDoc{PersonID: pid, TMDbPersonID: c.TMDbID, Name: c.Name, Character: c.Character,
			BillingOrder: c.Order, ProfilePath: nonEmpty(c.ProfilePath)})
	}
	for _, c := range d.Crew {
		if len(doc.Crew) == MaxCrew {
			break
		}
		if c.TMDbID <= 0 || c.Name == "" {
			continue
		}
		pid := person(c.TMDbID, c.Name, cmp.Or(c.KnownForDepartment, c.Department), c.ProfilePath)
		e.Credits = append(e.Credits, CreditRow{PersonID: pid, Role: c.Job, Department: nonEmpty(c.Department)})
		doc.Crew = append(doc.Crew, crewDoc{PersonID: pid, TMDbPersonID: c.TMDbID, Name: c.Name, Job: c.Job,
			Department: c.Department, ProfilePath: nonEmpty(c.ProfilePath)})
		if c.Job == "Director" && e.Director == nil {
			name := c.Name
			e.Director = &name
		}
	}
	var err error
	if e.Profile, err = json.Marshal(doc); err != nil {
		return MovieEnrichment{}, fmt.Errorf("movie profile: %w", err)
	}
	return e, nil
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func positive(n int64) *int64 {
	if n <= 0 {
		return nil
	}
	return &n
}
