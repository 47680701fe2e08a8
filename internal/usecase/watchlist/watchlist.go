// Package watchlist is the watchlist use cases: adding and removing the movies a user wants to
// watch, and reading the list.
package watchlist

import (
	"context"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/movie"
)

// Entry is a movie on a watchlist.
type Entry struct {
	Movie   domain.Movie
	AddedAt time.Time
}

// Store is the storage of watchlists. Writes commit their events in the same transaction.
type Store interface {
	movie.Lookup
	MovieByID(ctx context.Context, id uuid.UUID) (domain.Movie, error)
	// AddToWatchlist stores m if new (with its events) and puts it on the user's watchlist with
	// WatchlistEntryAdded; a movie already there changes nothing.
	AddToWatchlist(ctx context.Context, userID uuid.UUID, m domain.Movie, now time.Time) (domain.Movie, error)
	// RestoreWatchlistEntry is AddToWatchlist for an entry restored from an account archive:
	// added at addedAt and quiet. It reports whether the entry is new.
	RestoreWatchlistEntry(ctx context.Context, userID uuid.UUID, m domain.Movie, addedAt time.Time) (domain.Movie, bool, error)
	// RemoveFromWatchlist removes the entry with WatchlistEntryRemoved; KindNotFound if absent.
	RemoveFromWatchlist(ctx context.Context, userID, movieID uuid.UUID) error
	Watchlist(ctx context.Context, userID uuid.UUID, p domain.Page) (domain.Paged[Entry], error)
	OnWatchlist(ctx context.Context, userID, movieID uuid.UUID) (bool, error)
}

// Service runs the watchlist use cases.
type Service struct {
	store    Store
	resolver *movie.Resolver
	now      func() time.Time
}

// NewService builds the service.
func NewService(store Store, resolver *movie.Resolver) *Service {
	return &Service{store: store, resolver: resolver, now: time.Now}
}

// AddCommand names the movie to add: by id (it must exist), or as a movie request.
type AddCommand struct {
	UserID  uuid.UUID
	MovieID *uuid.UUID
	Movie   movie.Request
}

// Add puts a movie on the user's watchlist and returns it; adding it twice is not an error.
func (s *Service) Add(ctx context.Context, c AddCommand) (domain.Movie, error) {
	var (
		m   domain.Movie
		err error
	)
	if c.MovieID != nil {
		m, err = s.store.MovieByID(ctx, *c.MovieID)
	} else {
		m, err = s.resolver.Resolve(ctx, c.Movie)
	}
	if err != nil {
		return domain.Movie{}, err
	}
	return s.store.AddToWatchlist(ctx, c.UserID, m, s.now().UTC())
}

// Restore puts the movie a request names on the user's watchlist as an account archive holds
// it, added at addedAt and not announced, and reports whether it was not there yet.
func (s *Service) Restore(ctx context.Context, userID uuid.UUID, req movie.Request, addedAt time.Time) (bool, error) {
	m, err := s.resolver.Resolve(ctx, req)
	if err != nil {
		return false, err
	}
	_, added, err := s.store.RestoreWatchlistEntry(ctx, userID, m, addedAt.UTC())
	return added, err
}

// Remove takes a movie off the user's watchlist.
func (s *Service) Remove(ctx context.Context, userID, movieID uuid.UUID) error {
	return s.store.RemoveFromWatchlist(ctx, userID, movieID)
}

// List returns a page of the user's watchlist, newest first.
func (s *Service) List(ctx context.Context, userID uuid.UUID, p domain.Page) (domain.Paged[Entry], error) {
	return s.store.Watchlist(ctx, userID, p)
}

// Contains reports whether the movie is on the user's watchlist.
func (s *Service) Contains(ctx context.Context, userID, movieID uuid.UUID) (bool, error) {
	return s.store.OnWatchlist(ctx, userID, movieID)
}
