package domain

import (
	"time"

	"github.com/google/uuid"
)

// RemoteActor is what we keep of another server's actor document: where to deliver to it, where
// its public posts are, and the key its requests are signed with.
type RemoteActor struct {
	URL          string
	Inbox        string
	SharedInbox  string // SharedInbox is empty when the server has none.
	Outbox       string
	Handle       string // Handle is "@user@host", when known.
	DisplayName  string
	KeyID        string
	PublicKeyPEM string
	FetchedAt    time.Time
	// AlsoKnownAs are the actor's aliases as its document lists them, read on a fetch and not
	// cached (a Move is checked against a fresh fetch).
	AlsoKnownAs []string
}

// DeliveryInbox is where activities for this actor go: its server's shared inbox if it has one,
// so one POST serves every follower there.
func (a RemoteActor) DeliveryInbox() string {
	if a.SharedInbox != "" {
		return a.SharedInbox
	}
	return a.Inbox
}

// RemoteReview is a review published by another instance, keyed by its ActivityPub object id.
type RemoteReview struct {
	ID          uuid.UUID // ID derives from APID, so saving the same object twice is an update.
	APID        string
	ActorURL    string
	UserID      uuid.UUID // UserID derives from ActorURL.
	Movie       Movie     // Movie.ID derives from the external id (or title and year).
	Rating      int
	Comment     *string
	WatchedAt   time.Time
	WatchMedium *WatchMedium
	Published   time.Time
}

// Publication is one outbound activity: the document, who it is by, the relation it records
// (a Follow or Block, which a later Accept, Reject or Undo must reference) and its deliveries,
// written together.
type Publication struct {
	ActivityID string
	Type       string
	ActorID    uuid.UUID
	ObjectID   string
	Activity   []byte
	Relation   *Relation
	Deliveries []Delivery
	// Direct writes the deliveries straight into the delivery lane's queue in the publishing
	// transaction, not into the outbox: a fan-out to thousands of inboxes then costs the outbox
	// nothing (docs/adr/0007-federation-deliveries-queued-by-the-publication.md).
	Direct bool
}

// Relation is the latest Follow or Block activity from one actor to another.
type Relation struct {
	Type       string // "Follow" or "Block"
	Actor      string
	Object     string
	ActivityID string
}

// Delivery is one FederationDeliveryRequested with the id its writer derived (its outbox event
// id, or with Publication.Direct its delivery id in the lane's queue).
type Delivery struct {
	EventID uuid.UUID
	Event   FederationDeliveryRequested
}

// ActorProfile is what a local actor document shows besides the account: the profile a user
// edits. Empty fields are left out of the document.
type ActorProfile struct {
	DisplayName string
	Bio         string // Bio is plain text; the actor's summary renders it as HTML.
	AvatarKey   string // AvatarKey and BannerKey are image-storage keys (or absolute URLs).
	BannerKey   string
	// AlsoKnownAs are the actor URLs the user says are also theirs (a Move's target must list
	// the old actor here).
	AlsoKnownAs []string
	// MovedTo is the actor the account moved to, once it has.
	MovedTo string
	Fields  []ProfileField
}

// Reaction is a remote actor's Like or boost (Announce) of a local review.
type Reaction struct {
	ReviewID   uuid.UUID
	Kind       string // "Like" or "Announce"
	ActorURL   string
	ActivityID string
}

// ReactionCounts are a review's likes and boosts.
type ReactionCounts struct {
	Likes, Boosts int
}
