package federation

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// instanceActor is the instance actor as a user: it signs the fetches made on nobody's behalf.
func instanceActor() domain.User { return domain.User{ID: InstanceActorID, Username: InstanceUsername} }

// LocalActor is the local user an actor path names, or the instance actor.
func (s *Service) LocalActor(ctx context.Context, id uuid.UUID) (domain.User, error) {
	return s.Account(ctx, id)
}

// Account is a local user (or the instance actor) by id, as WebFinger names it by actor URL.
func (s *Service) Account(ctx context.Context, id uuid.UUID) (domain.User, error) {
	if id == InstanceActorID {
		return instanceActor(), nil
	}
	return s.ports.Accounts.UserByID(ctx, id)
}

// FormerNameWindow is how long WebFinger still answers for the name an account gave up by a
// rename: the answer's subject is the new name, which Mastodon and its peers look up again and
// accept as the same actor, so a handle written down before the rename keeps working meanwhile.
// The old name is never reissued either way.
const FormerNameWindow = 90 * 24 * time.Hour

// AccountByName is a local user (or the instance actor) by username, as WebFinger names it by
// acct:, or the account that gave the name up by a rename within FormerNameWindow.
func (s *Service) AccountByName(ctx context.Context, username string) (domain.User, error) {
	if strings.EqualFold(username, InstanceUsername) {
		return instanceActor(), nil
	}
	u, err := s.ports.Accounts.UserByUsername(ctx, username)
	if domain.KindOf(err) == domain.KindNotFound {
		if former, ferr := s.ports.Accounts.UserByFormerUsername(ctx, username, s.now().Add(-FormerNameWindow)); ferr == nil {
			return former, nil
		} else if domain.KindOf(ferr) != domain.KindNotFound {
			return domain.User{}, ferr
		}
	}
	return u, err
}

// Profile is what a local actor's document shows besides the account; the instance actor has
// none.
func (s *Service) Profile(ctx context.Context, id uuid.UUID) (domain.ActorProfile, error) {
	if id == InstanceActorID {
		return domain.ActorProfile{DisplayName: "moviesdiary"}, nil
	}
	return s.ports.Accounts.ActorProfile(ctx, id)
}

// NodeStats counts the local users and local reviews NodeInfo reports.
func (s *Service) NodeStats(ctx context.Context) (users, reviews int, err error) {
	return s.ports.Reviews.NodeStats(ctx)
}

// OutboxItem is one review of a user's outbox with the id of the Create that carries it.
type OutboxItem struct {
	CreateID string
	Review   domain.Review
	Movie    domain.Movie
}

// Outbox is a page of a user's outbox: their reviews, newest first, as the Creates we sent
// (a review from before federation gets an id derived from the review: stable, but not
// stored), and their total. It is empty for the instance actor and for a user who does not
// federate reviews; a failed read of the settings is returned, not taken as consent.
func (s *Service) Outbox(ctx context.Context, user uuid.UUID, offset, limit int) ([]OutboxItem, int, error) {
	set, err := s.ports.Accounts.Settings(ctx, user)
	if err != nil {
		return nil, 0, err
	}
	if !set.Reviews || user == InstanceActorID {
		return nil, 0, nil
	}
	reviews, movies, total, err := s.ports.Reviews.OutboxReviews(ctx, user, offset, limit)
	if err != nil {
		return nil, 0, err
	}
	objects := make([]string, len(reviews))
	for i, rv := range reviews {
		objects[i] = s.urls.Review(rv.ID)
	}
	created, err := s.ports.Publications.ActivityIDs(ctx, "Create", objects)
	if err != nil {
		return nil, 0, err
	}
	items := make([]OutboxItem, len(reviews))
	for i, rv := range reviews {
		id, ok := created[objects[i]]
		if !ok {
			id = ActivityID(s.urls.Base, rv.ID.String(), "Create")
		}
		items[i] = OutboxItem{CreateID: id, Review: rv, Movie: movies[i]}
	}
	return items, total, nil
}

// FollowCollection is a page of a user's followers (or of whom they follow) as actor URLs, and
// the total.
func (s *Service) FollowCollection(ctx context.Context, user uuid.UUID, followers bool, offset, limit int) ([]string, int, error) {
	ids, total, err := s.ports.Follows.FollowCollection(ctx, user, followers, offset, limit)
	if err != nil {
		return nil, 0, err
	}
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if uid, ok := id.UserID(); ok {
			out = append(out, s.urls.Actor(uid))
		} else {
			out = append(out, id.ID)
		}
	}
	return out, total, nil
}

// Review is a local review and its movie, when its author federates reviews (else not found).
func (s *Service) Review(ctx context.Context, id uuid.UUID) (domain.Review, domain.Movie, error) {
	rv, m, err := s.ports.Reviews.FederatedReview(ctx, id)
	if err != nil {
		return rv, m, err
	}
	set, err := s.ports.Accounts.Settings(ctx, rv.UserID)
	if err != nil {
		return rv, m, err
	}
	if !set.Reviews {
		return domain.Review{}, domain.Movie{}, domain.NotFound("Entity not found: review")
	}
	return rv, m, nil
}

// Reactions counts the likes and boosts remote actors sent of a local review.
func (s *Service) Reactions(ctx context.Context, review uuid.UUID) (domain.ReactionCounts, error) {
	return s.ports.Reviews.ReactionCounts(ctx, review)
}

// LatestActivity is the latest activity we published about an object (its Create, Update or
// Delete), as sent.
func (s *Service) LatestActivity(ctx context.Context, objectID string) ([]byte, error) {
	return s.ports.Publications.LatestActivity(ctx, objectID)
}

// PublishedActivity is an activity we published, by its id, as sent.
func (s *Service) PublishedActivity(ctx context.Context, id string) ([]byte, error) {
	return s.ports.Publications.PublishedActivity(ctx, id)
}
