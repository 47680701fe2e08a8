package domain

import (
	"fmt"

	"github.com/google/uuid"
)

// MovieDiscovered means a movie with an external id was stored for the first time; movie
// resolution emits it, and the worker syncs its poster and indexes it for search.
type MovieDiscovered struct {
	MovieID            uuid.UUID `json:"movie_id"`
	ExternalMetadataID string    `json:"external_metadata_id"` // ExternalMetadataID is e.g. an IMDb or TMDb id.
}

// EventType returns "MovieDiscovered".
func (MovieDiscovered) EventType() string { return "MovieDiscovered" }

// Validate checks the movie id and that the external id is not empty.
func (e MovieDiscovered) Validate() error {
	return firstErr(needID("movie_id", e.MovieID), needText("external_metadata_id", e.ExternalMetadataID))
}

// MovieDeleted means a movie was removed after its last viewing was deleted; the delete-review use
// case emits it, and the worker deletes its poster object and its search documents.
type MovieDeleted struct {
	MovieID    uuid.UUID `json:"movie_id"`
	PosterPath *string   `json:"poster_path,omitempty"` // PosterPath is the stored poster key, if any.
}

// EventType returns "MovieDeleted".
func (MovieDeleted) EventType() string { return "MovieDeleted" }

// Validate checks the movie id and that a present poster path is not empty.
func (e MovieDeleted) Validate() error {
	return firstErr(needID("movie_id", e.MovieID), needOptText("poster_path", e.PosterPath))
}

// MovieEnrichmentRequested asks the worker to fetch a movie's metadata, cast and poster; the review
// logger, inbound federated reviews and the hourly staleness job emit it.
type MovieEnrichmentRequested struct {
	MovieID            uuid.UUID `json:"movie_id"`
	ExternalMetadataID string    `json:"external_metadata_id"` // ExternalMetadataID is e.g. an IMDb or TMDb id.
}

// EventType returns "MovieEnrichmentRequested".
func (MovieEnrichmentRequested) EventType() string { return "MovieEnrichmentRequested" }

// Validate checks the movie id and that the external id is not empty.
func (e MovieEnrichmentRequested) Validate() error {
	return firstErr(needID("movie_id", e.MovieID), needText("external_metadata_id", e.ExternalMetadataID))
}

// PosterSynced means the worker's poster sync stored a movie's poster; federation then re-broadcasts
// an Update of every local review of that movie.
type PosterSynced struct {
	MovieID uuid.UUID `json:"movie_id"`
}

// EventType returns "PosterSynced".
func (PosterSynced) EventType() string { return "PosterSynced" }

// Validate checks the movie id.
func (e PosterSynced) Validate() error { return needID("movie_id", e.MovieID) }

// ImageStored means an image (poster, backdrop, person photo, avatar or banner) was written to
// object storage; poster sync, the movie images handler, profile uploads and the image backfill
// emit it, and the worker converts it to WebP and makes its thumbnails.
type ImageStored struct {
	Key string `json:"key"` // Key is the object-storage key of the image.
}

// EventType returns "ImageStored".
func (ImageStored) EventType() string { return "ImageStored" }

// Validate checks that the key is not empty.
func (e ImageStored) Validate() error { return needText("key", e.Key) }

// MovieImagesRequested asks the worker to download a movie's backdrop and its cast's photos;
// saving a movie's enrichment emits it in the same transaction. The handler reads the movie's
// current images: what is stored already is not fetched again.
type MovieImagesRequested struct {
	MovieID uuid.UUID `json:"movie_id"`
}

// EventType returns "MovieImagesRequested".
func (MovieImagesRequested) EventType() string { return "MovieImagesRequested" }

// Validate checks the movie id.
func (e MovieImagesRequested) Validate() error { return needID("movie_id", e.MovieID) }

// SearchReindexRequested asks the worker to rebuild the whole search index; an admin emits it
// through the reindex endpoint. It has no fields and no "data" key on the wire.
type SearchReindexRequested struct{}

// EventType returns "SearchReindexRequested".
func (SearchReindexRequested) EventType() string { return "SearchReindexRequested" }

func (SearchReindexRequested) unit() {}

// PersonEnrichmentRequested asks the worker to fetch a person's profile from TMDb; reading a
// person or their credits emits it while the stored profile is missing or stale.
type PersonEnrichmentRequested struct {
	PersonID         uuid.UUID `json:"person_id"`
	ExternalPersonID string    `json:"external_person_id"` // ExternalPersonID is e.g. "tmdb:123".
}

// EventType returns "PersonEnrichmentRequested".
func (PersonEnrichmentRequested) EventType() string { return "PersonEnrichmentRequested" }

// Validate checks the person id and that the external id is not empty.
func (e PersonEnrichmentRequested) Validate() error {
	return firstErr(needID("person_id", e.PersonID), needText("external_person_id", e.ExternalPersonID))
}

// MovieResolutionRequested asks the worker to find a movie typed in by hand (it has no external
// id) on the metadata provider by its title and year; storing such a movie and the worker's
// resolution requester emit it. The handler reads the movie's current state: one resolved or
// deleted meanwhile is left alone.
type MovieResolutionRequested struct {
	MovieID uuid.UUID `json:"movie_id"`
}

// EventType returns "MovieResolutionRequested".
func (MovieResolutionRequested) EventType() string { return "MovieResolutionRequested" }

// Validate checks the movie id.
func (e MovieResolutionRequested) Validate() error { return needID("movie_id", e.MovieID) }

// MoviesMerged means a movie was found to be a film already stored as another movie and merged
// into it: its reviews, watchlist entries and watch-queue items moved to the movie Into, and its
// id redirects there. The merge (the background resolution, an operator's command) emits it with
// MovieDeleted of From and ReviewUpdated of each moved local review; the search index
// re-indexes Into.
type MoviesMerged struct {
	From uuid.UUID `json:"from_movie_id"`
	Into uuid.UUID `json:"into_movie_id"`
}

// EventType returns "MoviesMerged".
func (MoviesMerged) EventType() string { return "MoviesMerged" }

// Validate checks both ids, and that they differ.
func (e MoviesMerged) Validate() error {
	if err := firstErr(needID("from_movie_id", e.From), needID("into_movie_id", e.Into)); err != nil {
		return err
	}
	if e.From == e.Into {
		return fmt.Errorf("from_movie_id: a movie is not merged into itself")
	}
	return nil
}
