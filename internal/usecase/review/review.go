// Package review is the diary use cases: logging, editing and deleting reviews, and the diary,
// activity feed and movie history that read them.
package review

import (
	"context"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/movie"
)

// Store is the storage of reviews. Each write commits the review and the events it causes in one
// transaction: the adapter derives them from what the write found (a new movie, a watchlist
// entry removed, the movie's last review gone).
type Store interface {
	movie.Lookup
	// LogReview stores r for movie m (stored first if new; a nil m.ID is matched on title and
	// year or created) and removes m from the user's watchlist. With idem set, a key already used
	// by the user returns the first result with Replayed set and writes nothing.
	LogReview(ctx context.Context, r domain.Review, m domain.Movie, idem *Idempotency) (Logged, error)
	// UpdateReview loads review id, lets update change it, and saves it.
	UpdateReview(ctx context.Context, id uuid.UUID, update func(*domain.Review) error) (domain.Review, error)
	// DeleteReview loads review id, lets check veto, and deletes it, and its movie when no
	// review or watchlist entry is left.
	DeleteReview(ctx context.Context, id uuid.UUID, check func(domain.Review) error) error
}

// Reader is the read side of the diary.
type Reader interface {
	Diary(ctx context.Context, f DiaryFilter, p domain.Page) (domain.Paged[Entry], error)
	Feed(ctx context.Context, sort Sort, p domain.Page) (domain.Paged[Entry], error)
	History(ctx context.Context, movieID uuid.UUID) ([]domain.Review, error)
	MovieByID(ctx context.Context, id uuid.UUID) (domain.Movie, error)
	// FollowingFeed returns a page of the reviews by the people owner follows (accepted
	// follows; local users' and remote actors'), newest viewing first.
	FollowingFeed(ctx context.Context, owner uuid.UUID, p domain.Page) (domain.Paged[Entry], error)
	// ReviewEntry returns one review with its movie; an unknown id is NotFound.
	ReviewEntry(ctx context.Context, id uuid.UUID) (Entry, error)
}

// Idempotency is a client's Idempotency-Key and a hash of the request it came with.
type Idempotency struct {
	Key         string
	RequestHash string
}

// Logged is the result of LogReview.
type Logged struct {
	Review domain.Review
	Movie  domain.Movie
	// Replayed is true when an Idempotency-Key returned an earlier result.
	Replayed bool
}

// Service runs the diary use cases.
type Service struct {
	store    Store
	reader   Reader
	resolver *movie.Resolver
	now      func() time.Time
}

// NewService builds the service.
func NewService(store Store, reader Reader, resolver *movie.Resolver) *Service {
	return &Service{store: store, reader: reader, resolver: resolver, now: time.Now}
}

// LogCommand is a new review as a client sends it.
type LogCommand struct {
	UserID      uuid.UUID
	Movie       movie.Request
	Rating      int
	Comment     *string
	WatchedAt   string
	WatchMedium *domain.WatchMedium
	Idempotency *Idempotency
}

// Log records a review, resolving its movie first.
func (s *Service) Log(ctx context.Context, c LogCommand) (Logged, error) {
	watched, err := domain.ParseWatchedAt(c.WatchedAt)
	if err != nil {
		return Logged{}, err
	}
	if err := domain.CheckWatchedAt(watched, s.now()); err != nil {
		return Logged{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Logged{}, err
	}
	now := s.now().UTC()
	r := domain.Review{
		ID: id, UserID: c.UserID, Rating: c.Rating, Comment: c.Comment, WatchedAt: watched,
		WatchMedium: c.WatchMedium, CreatedAt: now, UpdatedAt: now,
	}
	if err := r.Validate(); err != nil {
		return Logged{}, err
	}
	m, err := s.resolver.Resolve(ctx, c.Movie)
	if err != nil {
		return Logged{}, err
	}
	return s.store.LogReview(ctx, r, m, c.Idempotency)
}

// Patch is an edit: nil fields stay as they are; the Clear flags remove a value.
type Patch struct {
	Rating           *int
	Comment          *string
	ClearComment     bool
	WatchedAt        *string
	WatchMedium      *domain.WatchMedium
	ClearWatchMedium bool
}

// Edit changes a review. Only its author may, and a federated review cannot be edited.
func (s *Service) Edit(ctx context.Context, userID, id uuid.UUID, p Patch) (domain.Review, error) {
	var watched time.Time
	if p.WatchedAt != nil {
		var err error
		if watched, err = domain.ParseWatchedAt(*p.WatchedAt); err != nil {
			return domain.Review{}, err
		}
		if err := domain.CheckWatchedAt(watched, s.now()); err != nil {
			return domain.Review{}, err
		}
	}
	return s.store.UpdateReview(ctx, id, func(r *domain.Review) error {
		if err := mayChange(*r, userID, "edit"); err != nil {
			return err
		}
		if p.Rating != nil {
			r.Rating = *p.Rating
		}
		switch {
		case p.ClearComment:
			r.Comment = nil
		case p.Comment != nil:
			r.Comment = p.Comment
		}
		if p.WatchedAt != nil {
			r.WatchedAt = watched
		}
		switch {
		case p.ClearWatchMedium:
			r.WatchMedium = nil
		case p.WatchMedium != nil:
			r.WatchMedium = p.WatchMedium
		}
		r.UpdatedAt = s.now().UTC()
		return r.Validate()
	})
}

// Delete removes a review; only its author may.
func (s *Service) Delete(ctx context.Context, userID, id uuid.UUID) error {
	return s.store.DeleteReview(ctx, id, func(r domain.Review) error { return mayChange(r, userID, "delete") })
}

// Editable returns one of the caller's reviews with its movie, for an edit form. Any other
// review (someone else's, a federated one, an unknown id) is NotFound: the form offers nothing to
// edit, and whose review an id is stays unsaid.
func (s *Service) Editable(ctx context.Context, userID, id uuid.UUID) (Entry, error) {
	e, err := s.reader.ReviewEntry(ctx, id)
	if err != nil {
		return Entry{}, err
	}
	if mayChange(e.Review, userID, "edit") != nil {
		return Entry{}, domain.NotFound("Entity not found: review %s", id)
	}
	return e, nil
}

func mayChange(r domain.Review, userID uuid.UUID, verb string) error {
	if r.Federated() {
		return domain.Forbidden("Forbidden: cannot %s a federated review", verb)
	}
	if r.UserID != userID {
		return domain.Forbidden("Forbidden: not your review")
	}
	return nil
}
