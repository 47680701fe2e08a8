package domain

import "github.com/google/uuid"

// WatchlistEntryAdded means a user put a movie on their watchlist; the watchlist-add use case
// emits it and federation broadcasts it as a Create.
type WatchlistEntryAdded struct {
	UserID             uuid.UUID `json:"user_id"`
	MovieID            uuid.UUID `json:"movie_id"`
	MovieTitle         string    `json:"movie_title"`
	ReleaseYear        uint16    `json:"release_year"`
	ExternalMetadataID *string   `json:"external_metadata_id,omitempty"` // ExternalMetadataID is the movie's external id, if known.
	AddedAt            UnixTime  `json:"added_at"`                       // AddedAt is when the entry was added.
	// Quiet is set on an entry imported without federate: true; federation does not announce it.
	Quiet bool `json:"quiet,omitempty"`
}

// EventType returns "WatchlistEntryAdded".
func (WatchlistEntryAdded) EventType() string { return "WatchlistEntryAdded" }

// Validate checks the ids, that a present external id is not empty and that added_at is present.
func (e WatchlistEntryAdded) Validate() error {
	return firstErr(
		needID("user_id", e.UserID),
		needID("movie_id", e.MovieID),
		needOptText("external_metadata_id", e.ExternalMetadataID),
		needTime("added_at", e.AddedAt),
	)
}

// WatchlistEntryRemoved means a movie left a user's watchlist, by removal or because the user
// reviewed it; federation sends a Delete of the entry's Tombstone.
type WatchlistEntryRemoved struct {
	UserID  uuid.UUID `json:"user_id"`
	MovieID uuid.UUID `json:"movie_id"`
}

// EventType returns "WatchlistEntryRemoved".
func (WatchlistEntryRemoved) EventType() string { return "WatchlistEntryRemoved" }

// Validate checks the ids.
func (e WatchlistEntryRemoved) Validate() error {
	return firstErr(needID("user_id", e.UserID), needID("movie_id", e.MovieID))
}
