// Package integration is the media-server integrations: webhook tokens, the ingest of a finished
// movie reported by Jellyfin, Plex or Emby into its user's watch queue, and the queue itself
// (confirming an entry logs a review, dismissing it drops it).
package integration

import (
	"context"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/movie"
)

// Store is the storage of tokens and watch events. Each write commits its events in the same
// transaction.
type Store interface {
	movie.Lookup
	CreateWebhookToken(ctx context.Context, t domain.WebhookToken) error
	WebhookTokens(ctx context.Context, userID uuid.UUID) ([]domain.WebhookToken, error)
	// DeleteWebhookToken deletes the user's token; KindNotFound when the user has none with id.
	DeleteWebhookToken(ctx context.Context, userID, id uuid.UUID) error
	// UseWebhookToken returns the token of provider with that hash and sets its last_used_at to
	// now; KindNotFound when there is none.
	UseWebhookToken(ctx context.Context, hash string, provider domain.WatchSource, now time.Time) (domain.WebhookToken, error)
	// SaveWatch stores ev with WatchEventIngested unless its user has a watch event with the
	// same DedupKey watched at or after since: then it writes nothing and returns false. With
	// confirm set, ev is stored confirmed and confirm's review is logged with it, exactly as
	// POST /reviews logs one, all in one transaction.
	SaveWatch(ctx context.Context, ev domain.WatchEvent, since time.Time, confirm *Confirmed) (bool, error)
	WatchEvent(ctx context.Context, id uuid.UUID) (domain.WatchEvent, error)
	// PendingWatches is the user's queue, oldest first.
	PendingWatches(ctx context.Context, userID uuid.UUID) ([]domain.WatchEvent, error)
	// PendingWatchCount is how many watches wait in the user's queue.
	PendingWatchCount(ctx context.Context, userID uuid.UUID) (int, error)
	// ConfirmWatches logs every review and closes its watch event, in one transaction: all or
	// nothing. An event no longer pending (or not userID's) fails the whole call.
	ConfirmWatches(ctx context.Context, userID uuid.UUID, at time.Time, cs []Confirmed) error
	// DismissWatches closes the user's pending events among ids and returns how many it closed;
	// an id that is missing is KindNotFound and one of another user's KindForbidden, and then
	// nothing is dismissed.
	DismissWatches(ctx context.Context, userID uuid.UUID, ids []uuid.UUID, at time.Time) (int, error)
}

// Confirmed is a watch event turned into a review of a resolved movie.
type Confirmed struct {
	EventID uuid.UUID
	Review  domain.Review
	Movie   domain.Movie
}

// Service runs the integration use cases.
type Service struct {
	store    Store
	resolver *movie.Resolver
	now      func() time.Time
}

// NewService builds the service; resolver is the one POST /reviews uses, so a confirmed watch
// names its movie the same way (external id → stored movie → TMDb → the reported title and year).
func NewService(store Store, resolver *movie.Resolver, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, resolver: resolver, now: now}
}
