package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/movie"
	"moviesdiary/internal/usecase/review"
)

// maxIdempotencyKey bounds the Idempotency-Key header.
const maxIdempotencyKey = 255

// logReviewRequest is the body of POST /api/v1/reviews.
type logReviewRequest struct {
	ExternalMetadataID *string             `json:"external_metadata_id"`
	ManualTitle        *string             `json:"manual_title" openapi:"maxLength=255"`
	ManualReleaseYear  *int                `json:"manual_release_year" openapi:"minimum=1888,maximum=65535"`
	ManualDirector     *string             `json:"manual_director"`
	Rating             *int                `json:"rating" openapi:"required,nonnull,minimum=1,maximum=5"`
	Comment            *string             `json:"comment" openapi:"maxLength=10000"`
	WatchedAt          *string             `json:"watched_at" openapi:"required,nonnull,format=watched-at"`
	WatchMedium        *domain.WatchMedium `json:"watch_medium"`
}

// command validates the request's shape (required fields) and builds the use-case command.
func (req logReviewRequest) command() (review.LogCommand, error) {
	if req.Rating == nil {
		return review.LogCommand{}, required("rating")
	}
	if req.WatchedAt == nil {
		return review.LogCommand{}, required("watched_at")
	}
	c := review.LogCommand{
		Movie: movie.Request{
			ManualTitle: req.ManualTitle, ManualYear: req.ManualReleaseYear, ManualDirector: req.ManualDirector,
		},
		Rating: *req.Rating, Comment: req.Comment, WatchedAt: *req.WatchedAt, WatchMedium: req.WatchMedium,
	}
	if req.ExternalMetadataID != nil {
		c.Movie.ExternalID = *req.ExternalMetadataID
	}
	return c, nil
}

// logReviewResponse is what POST /reviews returns: the review and its resolved movie.
type logReviewResponse = diaryEntryDTO

func (s *Server) logReview(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return decodeError(err)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var req logReviewRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	c, err := req.command()
	if err != nil {
		return err
	}
	c.UserID = currentUser(r)
	if key := r.Header.Get("Idempotency-Key"); key != "" {
		if len(key) > maxIdempotencyKey {
			return badRequest("Idempotency-Key must be at most 255 characters")
		}
		sum := sha256.Sum256(body)
		c.Idempotency = &review.Idempotency{Key: key, RequestHash: hex.EncodeToString(sum[:])}
	}
	logged, err := s.Reviews.Log(r.Context(), c)
	if err != nil {
		return err
	}
	if logged.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	writeJSON(w, http.StatusCreated, logReviewResponse{Movie: toMovie(logged.Movie), Review: toReview(logged.Review)})
	return nil
}

// editReviewRequest is the body of PATCH /api/v1/reviews/{id}: an absent field is unchanged,
// null clears comment and watch_medium.
type editReviewRequest struct {
	Rating      optional[int]                `json:"rating" openapi:"nonnull,minimum=1,maximum=5"`
	Comment     optional[string]             `json:"comment" openapi:"maxLength=10000"`
	WatchedAt   optional[string]             `json:"watched_at" openapi:"nonnull,format=watched-at"`
	WatchMedium optional[domain.WatchMedium] `json:"watch_medium"`
}

func (req editReviewRequest) patch() (review.Patch, error) {
	var p review.Patch
	if req.Rating.Set {
		if req.Rating.Null {
			return p, unprocessable("rating: must not be null")
		}
		p.Rating = &req.Rating.Value
	}
	if req.WatchedAt.Set {
		if req.WatchedAt.Null {
			return p, unprocessable("watched_at: must not be null")
		}
		p.WatchedAt = &req.WatchedAt.Value
	}
	if req.Comment.Set {
		p.ClearComment = req.Comment.Null
		if !req.Comment.Null {
			p.Comment = &req.Comment.Value
		}
	}
	if req.WatchMedium.Set {
		p.ClearWatchMedium = req.WatchMedium.Null
		if !req.WatchMedium.Null {
			p.WatchMedium = &req.WatchMedium.Value
		}
	}
	return p, nil
}

func (s *Server) editReview(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var req editReviewRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	p, err := req.patch()
	if err != nil {
		return err
	}
	rv, err := s.Reviews.Edit(r.Context(), currentUser(r), id, p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toReview(rv))
	return nil
}

// diarySort reads sort_by of GET /diary: date_asc or asc, rating_desc, rating_asc; anything else
// is newest first.
func diarySort(v string) review.Sort {
	switch v {
	case "date_asc", "asc":
		return review.SortDateAsc
	case "rating_desc":
		return review.SortRatingDesc
	case "rating_asc":
		return review.SortRatingAsc
	}
	return review.SortDateDesc
}

// feedSort reads sort_by of GET /activity-feed: date_asc, rating, rating_asc; anything else is
// newest first.
func feedSort(v string) review.Sort {
	switch v {
	case "date_asc":
		return review.SortDateAsc
	case "rating", "rating_desc":
		return review.SortRatingDesc
	case "rating_asc":
		return review.SortRatingAsc
	}
	return review.SortDateDesc
}

func (s *Server) diary(w http.ResponseWriter, r *http.Request) error {
	p, err := page(r, 5)
	if err != nil {
		return err
	}
	f := review.DiaryFilter{Sort: diarySort(r.URL.Query().Get("sort_by"))}
	if f.UserID, err = queryUUID(r, "user_id"); err != nil {
		return err
	}
	if f.MovieID, err = queryUUID(r, "movie_id"); err != nil {
		return err
	}
	entries, err := s.Reviews.Diary(r.Context(), f, p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toPaginated(entries, toDiaryEntry))
	return nil
}

func (s *Server) activityFeed(w http.ResponseWriter, r *http.Request) error {
	p, err := page(r, 20)
	if err != nil {
		return err
	}
	entries, err := s.Reviews.Feed(r.Context(), feedSort(r.URL.Query().Get("sort_by")), p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toPaginated(entries, s.toFeedEntry))
	return nil
}

type historyResponse struct {
	Movie    movieDTO    `json:"movie"`
	Viewings []reviewDTO `json:"viewings"`
	Trend    string      `json:"trend"`
}

func (s *Server) movieHistory(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	h, err := s.Reviews.MovieHistory(r.Context(), id)
	if err != nil {
		return err
	}
	out := historyResponse{Movie: toMovie(h.Movie), Viewings: []reviewDTO{}, Trend: string(h.Trend)}
	for _, v := range h.Viewings {
		out.Viewings = append(out.Viewings, toReview(v))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
