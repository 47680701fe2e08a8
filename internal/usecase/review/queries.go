package review

import (
	"context"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Sort orders a diary or feed.
type Sort int

// The orders of a diary or feed; date descending is the default.
const (
	SortDateDesc Sort = iota
	SortDateAsc
	SortRatingDesc
	SortRatingAsc
)

// Entry is a review with its movie and author, as the diary and feed show it.
type Entry struct {
	Movie           domain.Movie
	Review          domain.Review
	UserDisplayName string
}

// DiaryFilter narrows the diary: a user's (local and remote reviews) or, without UserID, every
// local review.
type DiaryFilter struct {
	UserID  *uuid.UUID
	MovieID *uuid.UUID
	Sort    Sort
}

// Diary returns a page of diary entries.
func (s *Service) Diary(ctx context.Context, f DiaryFilter, p domain.Page) (domain.Paged[Entry], error) {
	return s.reader.Diary(ctx, f, p)
}

// Feed returns a page of the instance's activity feed: every review, local and remote.
func (s *Service) Feed(ctx context.Context, sort Sort, p domain.Page) (domain.Paged[Entry], error) {
	return s.reader.Feed(ctx, sort, p)
}

// Following returns a page of the reviews by the people the caller follows: local users and
// remote actors whose follow they accepted, newest viewing first.
func (s *Service) Following(ctx context.Context, me uuid.UUID, p domain.Page) (domain.Paged[Entry], error) {
	return s.reader.FollowingFeed(ctx, me, p)
}

// Trend says whether a movie's ratings rose or fell between its first and last viewing.
type Trend string

// The trends of a movie's history.
const (
	TrendImproved Trend = "improved"
	TrendDeclined Trend = "declined"
	TrendNeutral  Trend = "neutral"
)

// History is every viewing of a movie, oldest first, and its trend.
type History struct {
	Movie    domain.Movie
	Viewings []domain.Review
	Trend    Trend
}

// MovieHistory returns a movie's viewings by every user.
func (s *Service) MovieHistory(ctx context.Context, movieID uuid.UUID) (History, error) {
	m, err := s.reader.MovieByID(ctx, movieID)
	if err != nil {
		return History{}, err
	}
	v, err := s.reader.History(ctx, movieID)
	if err != nil {
		return History{}, err
	}
	h := History{Movie: m, Viewings: v, Trend: TrendNeutral}
	if n := len(v); n > 1 {
		switch first, last := v[0].Rating, v[n-1].Rating; {
		case last > first:
			h.Trend = TrendImproved
		case last < first:
			h.Trend = TrendDeclined
		}
	}
	return h, nil
}
