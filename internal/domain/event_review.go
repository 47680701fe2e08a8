package domain

import (
	"fmt"

	"github.com/google/uuid"
)

// Rating bounds of a review: whole stars from MinRating to MaxRating.
const (
	// MinRating is the lowest rating a review can carry.
	MinRating = 1
	// MaxRating is the highest rating a review can carry.
	MaxRating = 5
)

// ReviewLogged means a user logged a new diary review; the review logger emits it for the API, the
// HTML form, bulk import and watch-queue confirmation, and federation broadcasts it as a Create.
type ReviewLogged struct {
	ReviewID  uuid.UUID `json:"review_id"`
	MovieID   uuid.UUID `json:"movie_id"`
	UserID    uuid.UUID `json:"user_id"`
	Rating    uint8     `json:"rating"`     // Rating is 1..5 stars.
	WatchedAt UnixTime  `json:"watched_at"` // WatchedAt is when the user watched the movie.
	// Quiet is set on a review imported without federate: true; federation does not announce it.
	Quiet bool `json:"quiet,omitempty"`
}

// EventType returns "ReviewLogged".
func (ReviewLogged) EventType() string { return "ReviewLogged" }

// Validate checks the ids, the rating range and that watched_at is present.
func (e ReviewLogged) Validate() error {
	return validateReview(e.ReviewID, e.MovieID, e.UserID, e.Rating, e.WatchedAt)
}

// ReviewUpdated means a user edited an existing review; the edit-review use case emits it and
// federation broadcasts it as an Update.
type ReviewUpdated struct {
	ReviewID  uuid.UUID `json:"review_id"`
	MovieID   uuid.UUID `json:"movie_id"`
	UserID    uuid.UUID `json:"user_id"`
	Rating    uint8     `json:"rating"`     // Rating is 1..5 stars.
	WatchedAt UnixTime  `json:"watched_at"` // WatchedAt is when the user watched the movie.
}

// EventType returns "ReviewUpdated".
func (ReviewUpdated) EventType() string { return "ReviewUpdated" }

// Validate checks the ids, the rating range and that watched_at is present.
func (e ReviewUpdated) Validate() error {
	return validateReview(e.ReviewID, e.MovieID, e.UserID, e.Rating, e.WatchedAt)
}

// ReviewDeleted means a user deleted a review; the delete-review use case emits it and federation
// sends a Delete of the review's Tombstone to followers.
type ReviewDeleted struct {
	ReviewID uuid.UUID `json:"review_id"`
	UserID   uuid.UUID `json:"user_id"`
	// Quiet is set when the review was quiet (imported without federate: true): its followers
	// never got its Create, so federation sends no Delete. The row is gone when the event is
	// handled, so the event carries the flag.
	Quiet bool `json:"quiet,omitempty"`
}

// EventType returns "ReviewDeleted".
func (ReviewDeleted) EventType() string { return "ReviewDeleted" }

// Validate checks the ids.
func (e ReviewDeleted) Validate() error {
	return firstErr(needID("review_id", e.ReviewID), needID("user_id", e.UserID))
}

func validateReview(reviewID, movieID, userID uuid.UUID, rating uint8, watchedAt UnixTime) error {
	return firstErr(
		needID("review_id", reviewID),
		needID("movie_id", movieID),
		needID("user_id", userID),
		checkRating(rating),
		needTime("watched_at", watchedAt),
	)
}

// checkRating rejects a rating outside MinRating..MaxRating.
func checkRating(r uint8) error {
	if r < MinRating || r > MaxRating {
		return fmt.Errorf("rating: %d out of range %d..%d", r, MinRating, MaxRating)
	}
	return nil
}
