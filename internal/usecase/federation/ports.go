package federation

import (
	"context"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Accounts reads the local users federation speaks for, what each lets federate, and the
// profile their actor document shows.
type Accounts interface {
	UserByID(ctx context.Context, id uuid.UUID) (domain.User, error)
	UserByUsername(ctx context.Context, username string) (domain.User, error)
	// UserByFormerUsername is the account that gave up username by a rename at or after since.
	UserByFormerUsername(ctx context.Context, username string, since time.Time) (domain.User, error)
	Settings(ctx context.Context, user uuid.UUID) (domain.FederationSettings, error)
	ActorProfile(ctx context.Context, user uuid.UUID) (domain.ActorProfile, error)
}

// Blocks tells which instances (domain blocks) and actors (a user's blocks) are refused.
type Blocks interface {
	DomainBlocked(ctx context.Context, host string) (bool, error)
	BlockedDomains(ctx context.Context) ([]string, error)
	HasBlocked(ctx context.Context, user uuid.UUID, actorURL string) (bool, error)
}

// Reviews reads the local reviews federation publishes.
type Reviews interface {
	FederatedReview(ctx context.Context, id uuid.UUID) (domain.Review, domain.Movie, error)
	LocalReviewsOfMovie(ctx context.Context, movie uuid.UUID) ([]uuid.UUID, error)
	OutboxReviews(ctx context.Context, user uuid.UUID, offset, limit int) ([]domain.Review, []domain.Movie, int, error)
	NodeStats(ctx context.Context) (users, reviews int, err error)
	ReactionCounts(ctx context.Context, review uuid.UUID) (domain.ReactionCounts, error)
}

// Goals reads the local yearly goals federation publishes, with their progress.
type Goals interface {
	GoalByID(ctx context.Context, id uuid.UUID) (domain.GoalProgress, error)
}

// Follows reads and records who follows whom across instances. Each write commits its events
// in the same transaction.
type Follows interface {
	FollowerInboxes(ctx context.Context, user uuid.UUID) ([]string, error)
	FollowStatus(ctx context.Context, follower, target domain.SocialIdentity) (string, error)
	FollowCollection(ctx context.Context, user uuid.UUID, followers bool, offset, limit int) ([]domain.SocialIdentity, int, error)
	AddRemoteFollower(ctx context.Context, user uuid.UUID, actorURL, followID, userActorURL string) error
	RemoveRemoteFollower(ctx context.Context, user uuid.UUID, actorURL string) error
	FollowAnswered(ctx context.Context, user uuid.UUID, actorURL string, accepted bool) error
	// BlockedByRemote drops the follows both ways between a local user and a remote actor who
	// blocked them.
	BlockedByRemote(ctx context.Context, user uuid.UUID, actorURL string) error
	// MoveFollows turns the local users' follows of oldActor into pending follows of newActor,
	// with a FollowRequested each (the Follow is sent to the new actor).
	MoveFollows(ctx context.Context, oldActor, newActor string) error
}

// Publications records the activities we publish, with their deliveries in the same
// transaction, and reads them back.
type Publications interface {
	Publish(ctx context.Context, p domain.Publication) error
	Relation(ctx context.Context, typ, actor, object string) (string, error)
	RelationByID(ctx context.Context, activityID string) (domain.Relation, error)
	ActivityIDs(ctx context.Context, typ string, objectIDs []string) (map[string]string, error)
	PublishedActivity(ctx context.Context, id string) ([]byte, error)
	LatestActivity(ctx context.Context, objectID string) ([]byte, error)
}

// Inbox keeps what remote servers send us: each activity once by its id (with the event that
// processes it), and the remote reviews they publish.
type Inbox interface {
	ReceiveActivity(ctx context.Context, e domain.ActivityReceived) (bool, error)
	SaveRemoteReview(ctx context.Context, r domain.RemoteReview) error
	DeleteRemoteReviews(ctx context.Context, actorURL, apID string) error
	// SaveReaction records a Like or boost of a local review (again: its activity id is updated).
	SaveReaction(ctx context.Context, r domain.Reaction) error
	// RemoveReaction deletes r.ActorURL's reaction with activity id r.ActivityID, or of kind
	// r.Kind on review r.ReviewID (an Undo names either).
	RemoveReaction(ctx context.Context, r domain.Reaction) error
}

// Remote reaches other servers; the ActivityPub adapter implements it over its signed,
// SSRF-guarded client. Its errors are transient unless marked domain.Permanent.
type Remote interface {
	// Actor returns a remote actor, from the cache while fresh unless refresh is set.
	Actor(ctx context.Context, actorURL string, refresh bool) (domain.RemoteActor, error)
	// Deliver POSTs an encoded activity to an inbox, signed by the local actor signer.
	Deliver(ctx context.Context, inbox string, activity []byte, signer uuid.UUID) error
	// OutboxPage fetches one document of a remote outbox, signed by the local actor signer.
	OutboxPage(ctx context.Context, pageURL string, signer uuid.UUID) (OutboxPage, error)
}

// Encoder renders an activity in the wire format. Its errors are returned as they are (a key
// read may be retried; an unencodable document is permanent).
type Encoder func(ctx context.Context, a Activity) ([]byte, error)
