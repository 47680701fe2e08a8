package sqlrow

import "moviesdiary/internal/usecase/review"

// Entry is a diary entry: a review, its movie and its author's name.
type Entry struct {
	ReviewMovie
	UserDisplay string `db:"user_display"`
}

// Entry maps the row to its domain value.
func (r Entry) Entry() (review.Entry, error) {
	rv, err := r.Review.Review()
	if err != nil {
		return review.Entry{}, err
	}
	m, err := r.Movie.Movie()
	if err != nil {
		return review.Entry{}, err
	}
	return review.Entry{Review: rv, Movie: m, UserDisplayName: r.UserDisplay}, nil
}
