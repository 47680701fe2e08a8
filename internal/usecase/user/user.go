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
	// UserTrends aggregates a user's reviews, listing at most limit directors and genres.
	UserTrends(ctx context.Context, id uuid.UUID, limit int) (Trends, error)
	Diary(ctx context.Context, f review.DiaryFilter, p domain.Page) (domain.Paged[review.Entry], error)
	Settings(ctx context.Context, user uuid.UUID) (domain.FederationSettings, error)
	SaveSettings(ctx context.Context, user uuid.UUID, s domain.FederationSettings) error
	// UserSummaries lists every local user with their counts, by username.
	UserSummaries(ctx context.Context) ([]Summary, error)
}

// Summary is one user of the users list: the user and their counts.
type Summary struct {
	User           domain.User
	TotalMovies    int
	AvgRating      *float64
	FollowingCount int
	FollowersCount int
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

// Profile is a user's public page: stats and one view, Entries (recent, ratings, history) or
// Trends.
type Profile struct {
	User    domain.User
	Stats   Stats
	View    string
	Entries domain.Paged[review.Entry]
	Trends  Trends
}

// Service runs the profile and settings use cases.
type Service struct{ store Store }

// NewService builds the service.
func NewService(store Store) *Service { return &Service{store: store} }

// Views of a profile. recent and ratings list a page of diary entries by date, history the same
// page grouped by month (by the client), trends the aggregates.
const (
	ViewRecent  = "recent"
	ViewRatings = "ratings"
	ViewHistory = "history"
	ViewTrends  = "trends"
)

// Profile returns a user's profile with stats and the view asked for.
func (s *Service) Profile(ctx context.Context, id uuid.UUID, view string, p domain.Page) (Profile, error) {
	switch view {
	case ViewRecent, ViewRatings, ViewHistory, ViewTrends:
	default:
		return Profile{}, domain.Invalid("unknown view %q (recent, ratings, history or trends)", view)
	}
	u, err := s.store.UserByID(ctx, id)
	if err != nil {
		return Profile{}, err
	}
	st, err := s.store.UserStats(ctx, id)
	if err != nil {
		return Profile{}, err
	}
	prof := Profile{User: u, Stats: st, View: view}
	if view == ViewTrends {
		prof.Trends, err = s.store.UserTrends(ctx, id, topN)
		return prof, err
	}
	prof.Entries, err = s.store.Diary(ctx, review.DiaryFilter{UserID: &id}, p)
	return prof, err
}

// Settings returns the caller's federation settings.
func (s *Service) Settings(ctx context.Context, me uuid.UUID) (domain.FederationSettings, error) {
	return s.store.Settings(ctx, me)
}

// SaveSettings replaces the caller's federation settings.
func (s *Service) SaveSettings(ctx context.Context, me uuid.UUID, fs domain.FederationSettings) error {
	return s.store.SaveSettings(ctx, me, fs)
}

// List returns every local user with their counts. Only an admin caller gets their e-mail
// addresses (caller uuid.Nil is anonymous): everyone else gets them blanked.
func (s *Service) List(ctx context.Context, caller uuid.UUID) ([]Summary, error) {
	admin := false
	if caller != uuid.Nil {
		u, err := s.store.UserByID(ctx, caller)
		if err != nil && domain.KindOf(err) != domain.KindNotFound {
			return nil, err
		}
		admin = err == nil && u.Role == domain.RoleAdmin
	}
	users, err := s.store.UserSummaries(ctx)
	if err != nil {
		return nil, err
	}
	for i := range users {
		users[i].User.PasswordHash = ""
		if !admin {
			users[i].User.Email = ""
		}
	}
	return users, nil
}
