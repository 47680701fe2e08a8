package federation

import (
	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Activity is an activity to publish: its id, its kind, the local actor who sends it and what it
// is about. The adapter renders it in the wire format (Encode).
type Activity struct {
	ID   string
	Type string // Create, Update, Delete, Follow, Undo, Accept, Reject, Block or Move
	// Actor is the local user (or the instance actor) who sends it.
	Actor uuid.UUID
	// Object is what the activity is about.
	Object Object
	// To is the audience; empty means the public, with the actor's followers in copy.
	To []string
	// Target is a Move's new actor URL.
	Target string
}

// Object is what an Activity carries; exactly one of its fields is set.
type Object struct {
	// ID is an object known by its id only (an actor: Follow, Block, Move, the actor's Delete).
	ID string
	// Tombstone is the id of a deleted object.
	Tombstone string
	// Review is a local review, sent as a Note with its Movie.
	Review *domain.Review
	Movie  domain.Movie
	// Watchlist is a movie added to a watchlist, sent as a Note.
	Watchlist *domain.WatchlistEntryAdded
	// Goal is a user's goal for a year with its progress, sent as a Note.
	Goal *domain.GoalProgress
	// Actor is a local user whose actor document is sent (the actor's Update).
	Actor *domain.User
	// Activity is an embedded activity: the Follow or Block an Undo, Accept or Reject refers to
	// (ActivityID is empty when we never recorded its id).
	Activity *domain.Relation
}

// Inbound is an inbound activity as the adapter read it off the wire, not yet trusted.
type Inbound struct {
	ID, Type, Actor string
	// Target is a Move's new actor.
	Target string
	// Object is the id of the activity's object (the embedded object's id when it is embedded).
	Object string
	// Inner and Note are the object, read as an activity and as a Note, when it is embedded
	// rather than only referenced; both are nil otherwise.
	Inner *domain.Relation
	Note  *Note
}

// Note is an embedded object's properties as sent: a review Note when Review or a rating is
// set. Nothing in it is trusted until the inbound rules have checked it.
type Note struct {
	ID, Type, AttributedTo string
	Review                 bool    // Review is the "review": true marker.
	HasRating              bool    // HasRating is whether a "rating" property is present at all.
	Rating                 float64 // Rating is the rating when it is a number, else 0.
	MovieTitle             string
	ReleaseYear            float64
	ExternalID             string // ExternalID is "externalMetadataId".
	PosterURL              string
	Comment                *string // Comment is nil unless the property is a string.
	WatchMedium            string
	WatchedAt, Published   string // RFC 3339, as sent.
}

// OutboxPage is one document of a remote outbox: the collection or one of its pages.
type OutboxPage struct {
	// Items are the page's activities; nil when the document has no item list.
	Items []Inbound
	// Collection is set when the document is the collection itself (a first page and no
	// items); First is then that first page.
	Collection bool
	First      string
	Next       string
}
