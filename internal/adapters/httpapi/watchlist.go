package httpapi

import (
	"net/http"

	"github.com/google/uuid"

	"moviesdiary/internal/usecase/movie"
	"moviesdiary/internal/usecase/watchlist"
)

// addWatchlistRequest is the body of POST /api/v1/watchlist: movie_id, or the fields that resolve
// a movie as POST /reviews does.
type addWatchlistRequest struct {
	MovieID            *uuid.UUID `json:"movie_id"`
	ExternalMetadataID *string    `json:"external_metadata_id"`
	ManualTitle        *string    `json:"manual_title" openapi:"maxLength=255"`
	ManualReleaseYear  *int       `json:"manual_release_year" openapi:"minimum=1888,maximum=65535"`
	ManualDirector     *string    `json:"manual_director"`
}

type watchlistEntryDTO struct {
	ID      uuid.UUID `json:"id"`
	Movie   movieDTO  `json:"movie"`
	AddedAt string    `json:"added_at" openapi:"format=display-date-time"`
}

type onWatchlistResponse struct {
	OnWatchlist bool `json:"on_watchlist"`
}

type addWatchlistResponse struct {
	Movie movieDTO `json:"movie"`
}

// watchlistEntryID names an entry: UUIDv5 of user and movie, stable across reads.
func watchlistEntryID(user, movieID uuid.UUID) uuid.UUID {
	return uuid.NewSHA1(user, movieID[:])
}

func (s *Server) listWatchlist(w http.ResponseWriter, r *http.Request) error {
	p, err := page(r, 5)
	if err != nil {
		return err
	}
	me := currentUser(r)
	entries, err := s.Watchlist.List(r.Context(), me, p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toPaginated(entries, func(e watchlist.Entry) watchlistEntryDTO {
		return watchlistEntryDTO{ID: watchlistEntryID(me, e.Movie.ID), Movie: toMovie(e.Movie), AddedAt: displayTime(e.AddedAt)}
	}))
	return nil
}

func (s *Server) addWatchlist(w http.ResponseWriter, r *http.Request) error {
	var req addWatchlistRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	c := watchlist.AddCommand{UserID: currentUser(r), MovieID: req.MovieID, Movie: movie.Request{
		ManualTitle: req.ManualTitle, ManualYear: req.ManualReleaseYear, ManualDirector: req.ManualDirector,
	}}
	if req.ExternalMetadataID != nil {
		c.Movie.ExternalID = *req.ExternalMetadataID
	}
	m, err := s.Watchlist.Add(r.Context(), c)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, addWatchlistResponse{Movie: toMovie(m)})
	return nil
}

func (s *Server) onWatchlist(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "movie_id")
	if err != nil {
		return err
	}
	on, err := s.Watchlist.Contains(r.Context(), currentUser(r), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, onWatchlistResponse{OnWatchlist: on})
	return nil
}
