package domain

import (
	"regexp"
	"strings"

	"github.com/google/uuid"
)

// Bounds of a manually entered movie.
const (
	// MinReleaseYear is the first year a movie can have been released.
	MinReleaseYear = 1888
	// MaxReleaseYear is the last year a release_year field can carry (a u16 in the original API).
	MaxReleaseYear = 65535
	// MaxTitleBytes bounds a manual title, in bytes after trimming.
	MaxTitleBytes = 255
)

// Movie is a film the diary knows. A movie with an ExternalID (an IMDb "tt…" id or "tmdb:N") has
// the id MovieIDFor(ExternalID), so every instance agrees on it.
type Movie struct {
	ID               uuid.UUID
	ExternalID       *string
	Title            string
	ReleaseYear      int
	Director         *string
	PosterPath       *string
	Genres           []string
	RuntimeMinutes   *int
	OriginalLanguage *string
	Overview         *string
	CollectionName   *string
}

// MovieIDFor is the id of the movie with an external id: UUIDv5 in the URL namespace.
func MovieIDFor(externalID string) uuid.UUID {
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte(externalID))
}

var externalIDPattern = regexp.MustCompile(`^(tt\d{1,12}|tmdb:\d{1,12})$`)

// NormalizeExternalID trims an external id; blank means none (""), and anything but "tt…" or
// "tmdb:N" is invalid.
func NormalizeExternalID(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	if !externalIDPattern.MatchString(s) {
		return "", Invalid("external_metadata_id %q must be an IMDb id (tt…) or tmdb:N", s)
	}
	return s, nil
}

// NewManualMovie validates a movie typed in by hand: a title and a release year are required,
// the director is optional. The id is left for the caller.
func NewManualMovie(title string, year *int, director *string) (Movie, error) {
	title = strings.TrimSpace(title)
	switch {
	case title == "":
		return Movie{}, Invalid("Manual title required if no external_metadata_id is given or it cannot be resolved")
	case len(title) > MaxTitleBytes:
		return Movie{}, Invalid("Title exceeds %d characters", MaxTitleBytes)
	case CheckText("title", title, false) != nil:
		return Movie{}, CheckText("title", title, false)
	case year == nil:
		return Movie{}, Invalid("Manual release year required if no external_metadata_id is given or it cannot be resolved")
	case *year < MinReleaseYear || *year > MaxReleaseYear:
		return Movie{}, Invalid("Release year must be %d or later", MinReleaseYear)
	}
	m := Movie{Title: title, ReleaseYear: *year}
	if director != nil {
		if d := strings.TrimSpace(*director); d != "" {
			if len(d) > MaxTitleBytes {
				return Movie{}, Invalid("Director exceeds %d characters", MaxTitleBytes)
			}
			if err := CheckText("director", d, false); err != nil {
				return Movie{}, err
			}
			m.Director = &d
		}
	}
	return m, nil
}
