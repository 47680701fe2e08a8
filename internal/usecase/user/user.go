// Package user is the user profile and settings use cases.
package user

import (
	"context"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/review"
)

// Store is the storage the profile and settings read and write.
type Store interface {
	UserByID(ctx context.Context, id uuid.UUID) (domain.User, error)
	UserStats(ctx context.Context, id uuid.UUID) (Stats, error)
	Diary(ctx context.Context, f review.DiaryFilter, p domain.Page) (domain.Paged[review.Entry], error)
	Settings(ctx context.Context, user uuid.UUID) (domain.FederationSettings, error)
	SaveSettings(ctx context.Context, user uuid.UUID, s domain.FederationSettings) error
}

// Stats summarise a user's diary and social graph.
type Stats struct {
	TotalMovies      int
	AvgRating        *float64
	FavoriteDirector *string
	MostActiveMonth  *string // MostActiveMonth is "YYYY-MM".
	FollowingCount   int
	FollowersCount   int
}

// Profile is a user's public page.
type Profile struct {
	User    domain.User
	Stats   Stats
	Entries domain.Paged[review.Entry]
}

// Service runs the profile and settings use cases.
type Service struct{ store Store }

// NewService builds the service.
func NewService(store Store) *Service { return &Service{store: store} }

// Views of a profile: both list diary entries by date; "ratings" is kept for older clients.
const (
	ViewRecent  = "recent"
	ViewRatings = "ratings"
)

// Profile returns a user's profile with stats and a page of recent diary entries.
func (s *Service) Profile(ctx context.Context, id uuid.UUID, view string, p domain.Page) (Profile, error) {
	if view != ViewRecent && view != ViewRatings {
		return Profile{}, domain.Invalid("unknown view %q (recent or ratings)", view)
	}
	u, err := s.store.UserByID(ctx, id)
	if err != nil {
		return Profile{}, err
	}
	st, err := s.store.UserStats(ctx, id)
	if err != nil {
		return Profile{}, err
	}
	e, err := s.store.Diary(ctx, review.DiaryFilter{UserID: &id}, p)
	if err != nil {
		return Profile{}, err
	}
	return Profile{User: u, Stats: st, Entries: e}, nil
}

// Settings returns the caller's federation settings.
func (s *Service) Settings(ctx context.Context, me uuid.UUID) (domain.FederationSettings, error) {
	return s.store.Settings(ctx, me)
}

// SaveSettings replaces the caller's federation settings.
func (s *Service) SaveSettings(ctx context.Context, me uuid.UUID, fs domain.FederationSettings) error {
	return s.store.SaveSettings(ctx, me, fs)
}
