package domain

import (
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// WatchSource is the media server that reported a watch; it names the webhook route too.
type WatchSource string

// The media servers a webhook token can be made for.
const (
	SourceJellyfin WatchSource = "jellyfin"
	SourcePlex     WatchSource = "plex"
	SourceEmby     WatchSource = "emby"
)

// ParseWatchSource accepts a known provider name.
func ParseWatchSource(s string) (WatchSource, error) {
	switch WatchSource(s) {
	case SourceJellyfin, SourcePlex, SourceEmby:
		return WatchSource(s), nil
	}
	return "", Invalid("Unknown provider %q: expected jellyfin, plex or emby", s)
}

// WebhookToken lets a media server post watches for one user. Only the SHA-256 hex of the token
// is kept (Hash); the token itself is shown once, when it is made.
type WebhookToken struct {
	ID       uuid.UUID
	UserID   uuid.UUID
	Provider WatchSource
	Label    *string
	Hash     string
	// AutoConfirmRating, when set, logs every accepted watch as a review with that rating at
	// once instead of queueing it.
	AutoConfirmRating *int
	CreatedAt         time.Time
	LastUsedAt        *time.Time
}

// WatchStatus is where a watch event is in the queue.
type WatchStatus string

// A watch event is pending until its user confirms it (a review) or dismisses it.
const (
	WatchPending   WatchStatus = "pending"
	WatchConfirmed WatchStatus = "confirmed"
	WatchDismissed WatchStatus = "dismissed"
)

// WatchDedupWindow is how long a repeated report of the same movie for the same user counts as
// the same watch (Plex sends media.scrobble more than once).
const WatchDedupWindow = time.Hour

// WatchEvent is a finished movie a media server reported, waiting in its user's watch queue.
type WatchEvent struct {
	ID     uuid.UUID
	UserID uuid.UUID
	Source WatchSource
	Title  string
	Year   *int
	// ExternalID is tmdb:N or tt… when the media server knew one.
	ExternalID *string
	// MovieID is the stored movie with that external id, when there was one at ingest.
	MovieID   *uuid.UUID
	Status    WatchStatus
	ReviewID  *uuid.UUID
	WatchedAt time.Time
	ClosedAt  *time.Time
}

// DedupKey names the movie of a watch: its external id, else its title (folded) and year, so
// two reports of one movie get one key.
func (e WatchEvent) DedupKey() string {
	if e.ExternalID != nil {
		return *e.ExternalID
	}
	year := ""
	if e.Year != nil {
		year = strconv.Itoa(*e.Year)
	}
	return "title:" + strings.ToLower(strings.TrimSpace(e.Title)) + "|" + year
}

// OpenTo lets userID act on the event (confirm or dismiss it) only while it is theirs
// (KindForbidden otherwise) and still pending (KindConflict otherwise).
func (e WatchEvent) OpenTo(userID uuid.UUID) error {
	if e.UserID != userID {
		return Forbidden("Forbidden: not your watch event")
	}
	if e.Status != WatchPending {
		return Errorf(KindConflict, "watch event %s is already %s", e.ID, e.Status)
	}
	return nil
}
