// Package enrichment is the worker's movie and person enrichment from the metadata provider
// (TMDb): profile, genres, keywords, cast, crew and people, and the periodic re-request of stale
// movies.
package enrichment

import (
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Freshness windows.
const (
	// MovieFresh is how long a movie profile is fresh: a request within it makes no TMDb call.
	MovieFresh = 30 * 24 * time.Hour
	// PersonFresh is how long a person's profile is fresh.
	PersonFresh = 90 * 24 * time.Hour
	// MissingRetry is how long a movie or person TMDb does not know is left alone.
	MissingRetry = 30 * 24 * time.Hour
	// MaxCast and MaxCrew bound the credits kept per movie.
	MaxCast = 20
	MaxCrew = 20
)

// Named is a genre or keyword with its TMDb id.
type Named struct {
	TMDbID int64  `json:"tmdb_id"`
	Name   string `json:"name"`
}

// CastMember is an acting credit from the provider.
type CastMember struct {
	TMDbID             int64
	Name               string
	Character          string
	Order              int
	ProfilePath        string
	KnownForDepartment string
}

// CrewMember is a crew credit from the provider.
type CrewMember struct {
	TMDbID             int64
	Name               string
	Job                string
	Department         string
	ProfilePath        string
	KnownForDepartment string
}

// Movie is what the provider knows of a movie.
type Movie struct {
	TMDbID           int64
	IMDbID           string
	Title            string
	Tagline          string
	Overview         string
	Runtime          *int
	Budget           int64
	Revenue          int64
	VoteAverage      float64
	VoteCount        int64
	OriginalLanguage string
	Collection       string
	BackdropPath     string // BackdropPath is TMDb's file path of the backdrop, "" when it has none.
	Genres           []Named
	Keywords         []Named
	Cast             []CastMember
	Crew             []CrewMember
}

// Person is what the provider knows of a person.
type Person struct {
	TMDbID             int64
	Name               string
	Biography          string
	Birthday           *string
	Deathday           *string
	PlaceOfBirth       *string
	Homepage           *string
	IMDbID             *string
	KnownForDepartment string
	ProfilePath        *string
}

// PersonRow is a person as enrichment stores them.
type PersonRow struct {
	ID                 uuid.UUID
	ExternalID         string // "tmdb:N"
	Name               string
	KnownForDepartment *string
	ProfilePath        *string
}

// CreditRow is one credit of the movie.
type CreditRow struct {
	PersonID   uuid.UUID
	Cast       bool
	Role       string // character or job
	Department *string
	Order      *int
}

// MovieEnrichment is everything one enrichment writes, in one transaction, the profile last.
type MovieEnrichment struct {
	MovieID          uuid.UUID
	Genres           []string
	Runtime          *int
	OriginalLanguage *string
	Overview         *string
	Collection       *string
	BackdropPath     *string // BackdropPath is TMDb's file path; the movie-images handler downloads it.
	Director         *string
	People           []PersonRow
	Credits          []CreditRow
	Profile          json.RawMessage // the GET /movies/{id}/profile document
	EnrichedAt       time.Time
}

// PersonID is the id of the person with TMDb id n: UUIDv5 of "tmdb:N", so every instance agrees.
func PersonID(tmdbID int64) uuid.UUID { return domain.MovieIDFor(personExternalID(tmdbID)) }

func personExternalID(tmdbID int64) string { return "tmdb:" + strconv.FormatInt(tmdbID, 10) }

// State is what the store knows of a movie's or person's enrichment.
type State struct {
	EnrichedAt *time.Time
	MissingAt  *time.Time // TMDb said it does not know it
}

// fresh reports whether state needs no provider call at now.
func (s State) fresh(now time.Time, freshFor time.Duration) bool {
	return s.EnrichedAt != nil && now.Sub(*s.EnrichedAt) < freshFor ||
		s.MissingAt != nil && now.Sub(*s.MissingAt) < MissingRetry
}

// enrich is one enrichment run: nothing for an entity that is gone (state is KindNotFound) or
// fresh at now; otherwise the provider's answer is saved, or the entity marked missing when the
// provider does not know it.
func enrich[T any](now time.Time, freshFor time.Duration, state func() (State, error), fetch func() (T, error),
	save func(T) error, markMissing func() error) error {
	st, err := state()
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if st.fresh(now, freshFor) {
		return nil
	}
	data, err := fetch()
	if errors.Is(err, domain.ErrNotFound) {
		return markMissing()
	}
	if err != nil {
		return err
	}
	return save(data)
}
