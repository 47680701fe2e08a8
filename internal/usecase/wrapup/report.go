package wrapup

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// Viewing is one local review in a wrap-up's range with what the report needs of its movie and
// its author.
type Viewing struct {
	WatchedAt time.Time
	Rating    int
	Medium    *string
	UserID    uuid.UUID
	UserName  string // the author's display name, else username
	MovieID   uuid.UUID
	Title     string
	Year      int // 0 when unknown
	Poster    *string
	Director  *string
	// DirectorID is the director's person id when enrichment knows them.
	DirectorID *uuid.UUID
	Genres     []string
	Runtime    *int   // minutes
	Budget     *int64 // USD
	Language   *string
	Keywords   []string
	Cast       []CastMember // top-billed actors, in billing order
}

// CastMember is a top-billed actor of a viewing's movie.
type CastMember struct {
	PersonID    uuid.UUID
	Name        string
	ProfilePath *string
}

// Scope is whose wrap-up a report is: a user's, or (nil) the instance's. It encodes as the
// original's {"User": "<uuid>"} or "Global".
type Scope struct{ User *uuid.UUID }

// MarshalJSON writes {"User": id} or "Global".
func (s Scope) MarshalJSON() ([]byte, error) {
	if s.User == nil {
		return []byte(`"Global"`), nil
	}
	return json.Marshal(map[string]uuid.UUID{"User": *s.User})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *Scope) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte(`"Global"`)) {
		s.User = nil
		return nil
	}
	var v struct{ User uuid.UUID }
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	s.User = &v.User
	return nil
}

// DateRange is the report's range, both ends YYYY-MM-DD.
type DateRange struct {
	Start string `json:"start" openapi:"format=date"`
	End   string `json:"end" openapi:"format=date"`
}

// MonthCount is one month of the range: YearMonth YYYY-MM, Label "Jan 2026".
type MonthCount struct {
	YearMonth string `json:"year_month"`
	Label     string `json:"label"`
	Count     int    `json:"count"`
}

// MovieRef names a movie of the report.
type MovieRef struct {
	MovieID        *uuid.UUID `json:"movie_id"`
	Title          string     `json:"title"`
	Year           int        `json:"year"`
	RuntimeMinutes *int       `json:"runtime_minutes"`
	PosterPath     *string    `json:"poster_path"`
}

// PersonStat is a ranked director or actor: viewings of their movies and the mean rating.
type PersonStat struct {
	PersonID  *uuid.UUID `json:"person_id"`
	Name      string     `json:"name"`
	Count     int        `json:"count"`
	AvgRating float64    `json:"avg_rating"`
}

// GenreStat is a ranked genre.
type GenreStat struct {
	Genre     string  `json:"genre"`
	Count     int     `json:"count"`
	AvgRating float64 `json:"avg_rating"`
}

// KeywordStat is a ranked keyword.
type KeywordStat struct {
	Keyword string `json:"keyword"`
	Count   int    `json:"count"`
}

// LanguageStat counts viewings by original language.
type LanguageStat struct {
	Language string `json:"language"`
	Count    int    `json:"count"`
}

// MediumStat counts viewings by watch medium.
type MediumStat struct {
	Medium string `json:"medium"`
	Count  int    `json:"count"`
}

// UserRef names the most active user of an instance-wide report.
type UserRef struct {
	UserID      uuid.UUID `json:"user_id"`
	DisplayName string    `json:"display_name"`
}

// Report is the wrap-up document GET /api/v1/wrapups/{id}/report returns: the original's
// WrapUpReport, every key always present, arrays never null, absent data null. Counts are of
// viewings (reviews in the range), so a rewatch counts twice.
type Report struct {
	Scope                    Scope          `json:"scope"`
	DateRange                DateRange      `json:"date_range"`
	GeneratedAt              string         `json:"generated_at" openapi:"format=date-time"`
	TotalMovies              int            `json:"total_movies"`
	TotalWatchTimeMinutes    int            `json:"total_watch_time_minutes"`
	MoviesPerMonth           []MonthCount   `json:"movies_per_month"`
	BusiestMonth             *string        `json:"busiest_month"`
	BusiestDayOfWeek         *string        `json:"busiest_day_of_week"`
	AvgRating                *float64       `json:"avg_rating"`
	RatingDistribution       [5]int         `json:"rating_distribution"`
	LongestMovie             *MovieRef      `json:"longest_movie"`
	ShortestMovie            *MovieRef      `json:"shortest_movie"`
	TopDirectors             []PersonStat   `json:"top_directors"`
	TopActors                []PersonStat   `json:"top_actors"`
	DirectorDiversity        int            `json:"director_diversity"`
	ActorDiversity           int            `json:"actor_diversity"`
	TopGenres                []GenreStat    `json:"top_genres"`
	GenreDiversity           int            `json:"genre_diversity"`
	HighestRatedGenre        *string        `json:"highest_rated_genre"`
	LowestRatedGenre         *string        `json:"lowest_rated_genre"`
	TopKeywords              []KeywordStat  `json:"top_keywords"`
	TotalBudgetWatched       *int64         `json:"total_budget_watched"`
	AvgBudget                *int64         `json:"avg_budget"`
	LanguageDistribution     []LanguageStat `json:"language_distribution"`
	WatchMediumDistribution  []MediumStat   `json:"watch_medium_distribution"`
	OldestMovie              *MovieRef      `json:"oldest_movie"`
	NewestMovie              *MovieRef      `json:"newest_movie"`
	TotalRewatches           int            `json:"total_rewatches"`
	MostRewatchedMovie       *MovieRef      `json:"most_rewatched_movie"`
	AvgRatingChangeOnRewatch *float64       `json:"avg_rating_change_on_rewatch"`
	HighestRatedMovie        *MovieRef      `json:"highest_rated_movie"`
	LowestRatedMovie         *MovieRef      `json:"lowest_rated_movie"`
	FirstMovieOfPeriod       *MovieRef      `json:"first_movie_of_period"`
	LastMovieOfPeriod        *MovieRef      `json:"last_movie_of_period"`
	MostActiveUser           *UserRef       `json:"most_active_user"`
	MostWatchedMovieGlobal   *MovieRef      `json:"most_watched_movie_global"`
	TotalUsersActive         *int           `json:"total_users_active"`
	PosterPaths              []string       `json:"poster_paths"`
	TopCastProfilePaths      []string       `json:"top_cast_profile_paths"`
}

// MarshalReport encodes a report.
func MarshalReport(r Report) (json.RawMessage, error) { return json.Marshal(r) }

// CurrentSchemaKey is a key only the current report schema has. A stored report without it was
// written by an older build (its own field names) and is regenerated when read; the store
// tests for the same key.
const CurrentSchemaKey = "top_cast_profile_paths"

// IsCurrent reports whether a stored report has the current schema.
func IsCurrent(report json.RawMessage) bool {
	var keys map[string]json.RawMessage
	if json.Unmarshal(report, &keys) != nil {
		return false
	}
	_, ok := keys[CurrentSchemaKey]
	return ok
}
