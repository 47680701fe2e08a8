package httpapi

import (
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/review"
)

// movieDTO is the original API's MovieDto.
type movieDTO struct {
	ID               uuid.UUID `json:"id"`
	Title            string    `json:"title"`
	ReleaseYear      int       `json:"release_year"`
	Director         *string   `json:"director"`
	PosterPath       *string   `json:"poster_path"`
	Genres           []string  `json:"genres"`
	RuntimeMinutes   *int      `json:"runtime_minutes"`
	OriginalLanguage *string   `json:"original_language"`
	Overview         *string   `json:"overview"`
	CollectionName   *string   `json:"collection_name"`
}

func toMovie(m domain.Movie) movieDTO {
	genres := m.Genres
	if genres == nil {
		genres = []string{}
	}
	return movieDTO{
		ID: m.ID, Title: m.Title, ReleaseYear: m.ReleaseYear, Director: m.Director, PosterPath: m.PosterPath,
		Genres: genres, RuntimeMinutes: m.RuntimeMinutes, OriginalLanguage: m.OriginalLanguage,
		Overview: m.Overview, CollectionName: m.CollectionName,
	}
}

// reviewDTO is the original API's ReviewDto; watched_at is naive (naiveTime), as its client
// parses it.
//
// rating stays the original's 1–5 integer for its clients; rating_precise (this server's) is the
// rating at the precision it came with — 4.5 for Letterboxd's four and a half stars, whose
// rating is 5 — and equals rating when that says it all. rewatch marks a viewing of a film seen
// before.
type reviewDTO struct {
	ID            uuid.UUID           `json:"id"`
	Rating        int                 `json:"rating" openapi:"minimum=1,maximum=5"`
	RatingPrecise float64             `json:"rating_precise" openapi:"minimum=0.5,maximum=5"`
	Rewatch       bool                `json:"rewatch"`
	Comment       *string             `json:"comment"`
	WatchedAt     string              `json:"watched_at" openapi:"format=naive-date-time"`
	WatchMedium   *domain.WatchMedium `json:"watch_medium,omitempty"`
}

func toReview(r domain.Review) reviewDTO {
	precise := float64(r.Rating)
	if r.RatingPrecise != nil {
		precise = *r.RatingPrecise
	}
	return reviewDTO{ID: r.ID, Rating: r.Rating, RatingPrecise: precise, Rewatch: r.Rewatch, Comment: r.Comment,
		WatchedAt: naiveTime(r.WatchedAt), WatchMedium: r.WatchMedium}
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// naiveTime is the original's YYYY-MM-DDTHH:MM:SS, UTC without a zone suffix: the format its
// client parses for review, diary, feed and history times (with a "Z" the review sheet crashes
// on "Invalid time value").
func naiveTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05") }

// displayTime is the original's YYYY-MM-DD HH:MM:SS (chrono's NaiveDateTime Display, to the
// second), UTC: its watchlist added_at and wrap-up created_at / completed_at.
func displayTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") }

// diaryEntryDTO is a review with its movie.
type diaryEntryDTO struct {
	Movie  movieDTO  `json:"movie"`
	Review reviewDTO `json:"review"`
}

func toDiaryEntry(e review.Entry) diaryEntryDTO {
	return diaryEntryDTO{Movie: toMovie(e.Movie), Review: toReview(e.Review)}
}

// feedEntryDTO is an activity-feed item.
type feedEntryDTO struct {
	Movie           movieDTO  `json:"movie"`
	Review          reviewDTO `json:"review"`
	UserID          uuid.UUID `json:"user_id"`
	UserDisplayName string    `json:"user_display_name"`
	IsFederated     bool      `json:"is_federated"`
	ActorURL        *string   `json:"actor_url,omitempty"`
}

func (s *Server) toFeedEntry(e review.Entry) feedEntryDTO {
	actor := e.Review.RemoteActorURL
	if actor == nil {
		u := s.actorURL(e.Review.UserID)
		actor = &u
	}
	return feedEntryDTO{
		Movie: toMovie(e.Movie), Review: toReview(e.Review), UserID: e.Review.UserID,
		UserDisplayName: e.UserDisplayName, IsFederated: e.Review.Federated(), ActorURL: actor,
	}
}

// actorURL is a local user's actor URL.
func (s *Server) actorURL(id uuid.UUID) string { return s.BaseURL + "/users/" + id.String() }
