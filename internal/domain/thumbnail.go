package domain

import (
	"slices"
	"strconv"
	"strings"
)

// thumbWidths are the widths, in pixels, each kind of stored image is thumbnailed in, keyed by
// the first segment of its key. They follow what the pages display (CSS pixels, doubled for
// high-density screens) and TMDb's own size ladder:
//
//   - posters: w185 for the lists and grids (62–92 CSS px wide today, ~150 in a grid: 185 covers
//     them at 2×) and w342 for the movie page (185 CSS px: 342 at 2×);
//   - backdrops: w780, the movie page's header;
//   - people (profile photos): w185, the person page's photo (185 CSS px) and cast faces;
//   - avatars: w192, the 96 CSS px round avatar at 2×;
//   - banners: none — shown full width (1500 px), a thumbnail would be the image again.
var thumbWidths = map[string][]int{
	"posters":   {185, 342},
	"backdrops": {780},
	"people":    {185},
	"avatars":   {192},
}

// ThumbWidths are the widths key's image is thumbnailed in; nil for a key that gets none (a
// remote URL, a banner, an AVIF we cannot decode, a thumbnail itself).
func ThumbWidths(key string) []int {
	if IsThumbKey(key) || strings.HasSuffix(key, ".avif") {
		return nil
	}
	kind, _, ok := strings.Cut(key, "/")
	if !ok {
		return nil
	}
	return thumbWidths[kind]
}

// HasThumb reports whether key's image gets a thumbnail of width.
func HasThumb(key string, width int) bool { return slices.Contains(ThumbWidths(key), width) }

// ThumbKey is the object key of key's thumbnail of width: key without its conversion suffix,
// then ".w{width}.webp" (posters/{id}.webp → posters/{id}.w185.webp). It derives from the key and
// the width alone, so a replay writes the same object and the key of an image and of its WebP
// conversion (the same picture) share their thumbnails. A source key is never changed in place
// (posters are keyed by movie id and written once, uploads by their content's hash), so a
// thumbnail key names one picture for its whole life: it may be cached forever.
func ThumbKey(key string, width int) string {
	return strings.TrimSuffix(key, ConvertedSuffix) + ".w" + strconv.Itoa(width) + ConvertedSuffix
}

// ParseThumbKey is ThumbKey's inverse: the source key (without conversion suffix) and the width
// of a thumbnail key, ok false for any other key, including a width the source's kind is not
// thumbnailed in.
func ParseThumbKey(key string) (source string, width int, ok bool) {
	rest, found := strings.CutSuffix(key, ConvertedSuffix)
	if !found {
		return "", 0, false
	}
	i := strings.LastIndex(rest, ".w")
	if i <= 0 {
		return "", 0, false
	}
	w, err := strconv.Atoi(rest[i+2:])
	if err != nil || w <= 0 || strconv.Itoa(w) != rest[i+2:] {
		return "", 0, false
	}
	source = rest[:i]
	if !slices.Contains(thumbWidths[strings.SplitN(source, "/", 2)[0]], w) || !strings.Contains(source, "/") {
		return "", 0, false
	}
	return source, w, true
}

// IsThumbKey reports whether key names a thumbnail.
func IsThumbKey(key string) bool {
	_, _, ok := ParseThumbKey(key)
	return ok
}

// FullImageKeys are the keys the full image of a thumbnail's source may be stored under: its
// WebP conversion first (what the database points at once converted), then the original.
func FullImageKeys(source string) []string {
	return []string{ConvertedKey(source), source}
}
