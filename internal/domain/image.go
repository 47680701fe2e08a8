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

// ConvertedKey is the key of key's WebP conversion.
func ConvertedKey(key string) string { return key + ConvertedSuffix }

// IsConvertedKey reports whether key names an already converted image (WebP or AVIF).
func IsConvertedKey(key string) bool {
	return strings.HasSuffix(key, ConvertedSuffix) || strings.HasSuffix(key, ".avif")
}
