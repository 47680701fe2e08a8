package domain

import (
	"strings"

	"github.com/google/uuid"
)

// ConvertedSuffix ends the key of an image converted to WebP: the conversion of key K is stored
// as K + ConvertedSuffix.
const ConvertedSuffix = ".webp"

// PosterKey is the object key of a movie's poster: derived from the movie id, so a replayed sync
// writes the same object and can tell it is already there.
func PosterKey(movieID uuid.UUID) string { return "posters/" + movieID.String() }

// BackdropKey is the object key of a movie's backdrop and PersonPhotoKey of a person's profile
// photo: derived from the id like PosterKey (and, like it, without an extension: TMDb serves
// JPEG or PNG, and GET /images sniffs the type), so a replay writes the same object.
func BackdropKey(movieID uuid.UUID) string { return "backdrops/" + movieID.String() }

// PersonPhotoKey is the object key of a person's profile photo; see BackdropKey.
func PersonPhotoKey(personID uuid.UUID) string { return "people/" + personID.String() }

// MovieImages are a movie's backdrop and the photos of its billed cast (enrichment keeps at
// most 20, in billing order), each as TMDb names it (a file path, "" when TMDb has none) and
// as stored (the key, nil until the worker downloaded it).
type MovieImages struct {
	BackdropPath string
	BackdropKey  *string
	Cast         []PersonImage
}

// PersonImage is one cast member's photo in MovieImages.
type PersonImage struct {
	PersonID    uuid.UUID
	ProfilePath string
	PhotoKey    *string
}

// ConvertedKey is the key of key's WebP conversion.
func ConvertedKey(key string) string { return key + ConvertedSuffix }

// IsConvertedKey reports whether key names an already converted image (WebP or AVIF).
func IsConvertedKey(key string) bool {
	return strings.HasSuffix(key, ConvertedSuffix) || strings.HasSuffix(key, ".avif")
}
