package review

import (
	"context"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// FeedSize is how many reviews a syndication feed (RSS, Atom) carries.
const FeedSize = 50

// RecentStore reads the newest local reviews for the feeds.
type RecentStore interface {
	// RecentReviews returns the newest local reviews (of one user, or of everyone when user is
	// nil), the most recently logged first, at most limit.
	RecentReviews(ctx context.Context, user *uuid.UUID, limit int) ([]Entry, error)
	UserByID(ctx context.Context, id uuid.UUID) (domain.User, error)
}

// Feeds are the instance's and each local user's public reviews, newest first, for the
// syndication feeds.
type Feeds struct{ store RecentStore }

// NewFeeds builds the feeds' reader.
func NewFeeds(store RecentStore) *Feeds { return &Feeds{store: store} }

// Instance returns the instance's newest local reviews.
func (f *Feeds) Instance(ctx context.Context) ([]Entry, error) {
	return f.store.RecentReviews(ctx, nil, FeedSize)
}

// User returns a local user and their newest reviews; an unknown user is NotFound.
func (f *Feeds) User(ctx context.Context, id uuid.UUID) (domain.User, []Entry, error) {
	u, err := f.store.UserByID(ctx, id)
	if err != nil {
		return domain.User{}, nil, err
	}
	entries, err := f.store.RecentReviews(ctx, &id, FeedSize)
	return u, entries, err
}
