package domain

import (
	"math"
	"strings"
	"time"

	"github.com/google/uuid"
)

// MaxCommentBytes bounds a review comment, counted in bytes after trimming.
const MaxCommentBytes = 10000

// Review is one viewing of a movie by a user: a rating, an optional comment, when and how it was
// watched. A review with a RemoteActorURL came in over federation and cannot be edited here.
type Review struct {
	ID      uuid.UUID
	UserID  uuid.UUID
	MovieID uuid.UUID
	Rating  int
	// RatingPrecise is the rating at the precision it came with, when Rating rounds it: 4.5
	// from Letterboxd's half stars is Rating 5, RatingPrecise 4.5. Nil when Rating says it all.
	RatingPrecise *float64
	// Rewatch marks a viewing of a film the user had seen before (Letterboxd's Rewatch).
	Rewatch        bool
	Comment        *string
	WatchedAt      time.Time
	WatchMedium    *WatchMedium
	RemoteActorURL *string
	CreatedAt      time.Time
	UpdatedAt      time.Time
	// Quiet is set on a local review imported without federate: true: federation never
	// announced it, so it sends no Update or Delete of it either.
	Quiet bool
}

// Federated reports whether the review came from another instance.
func (r Review) Federated() bool { return r.RemoteActorURL != nil }

// Validate checks the rating and the comment; it trims the comment and turns a blank one into
// none.
func (r *Review) Validate() error {
	if err := ValidateRating(r.Rating); err != nil {
		return err
	}
	if err := r.checkPrecise(); err != nil {
		return err
	}
	c, err := NormalizeComment(r.Comment)
	if err != nil {
		return err
	}
	r.Comment = c
	if r.WatchedAt.IsZero() {
		return Invalid("watched_at is required")
	}
	return nil
}

// PreciseRating returns the rating and, when it is not a whole number, the precise value it
// was rounded from: v rounded half away from zero (0.5 → 1, 4.5 → 5) and v to two decimals.
// v must be within 0.5..5 for the precise value to be kept.
func PreciseRating(v float64) (int, *float64) {
	r := int(math.Round(v))
	p := math.Round(v*100) / 100
	if p == float64(r) || p < 0.5 || p > MaxRating {
		return r, nil
	}
	return r, &p
}

// checkPrecise rejects a precise rating outside 0.5..5 or one that does not round to Rating.
func (r *Review) checkPrecise() error {
	if r.RatingPrecise == nil {
		return nil
	}
	p := *r.RatingPrecise
	if math.IsNaN(p) || p < 0.5 || p > MaxRating || int(math.Round(p)) != r.Rating {
		return Invalid("rating_precise %v must be within 0.5 and %d and round to the rating %d", p, MaxRating, r.Rating)
	}
	return nil
}

// DropStalePrecision forgets RatingPrecise once it no longer rounds to Rating: the rating was
// edited since, and the new one is whole.
func (r *Review) DropStalePrecision() {
	if r.RatingPrecise != nil && int(math.Round(*r.RatingPrecise)) != r.Rating {
		r.RatingPrecise = nil
	}
}

// ValidateRating rejects a rating outside MinRating..MaxRating.
func ValidateRating(r int) error {
	if r < MinRating || r > MaxRating {
		return Invalid("Rating must be between %d and %d, but received %d", MinRating, MaxRating, r)
	}
	return nil
}

// NormalizeComment trims a comment, turns a blank one into none and rejects one over
// MaxCommentBytes or against the text rule (CheckText; a comment is prose).
func NormalizeComment(c *string) (*string, error) {
	if c == nil {
		return nil, nil
	}
	s := strings.TrimSpace(*c)
	if s == "" {
		return nil, nil
	}
	if len(s) > MaxCommentBytes {
		return nil, Invalid("Comment exceeds %d characters", MaxCommentBytes)
	}
	if err := CheckText("comment", s, true); err != nil {
		return nil, err
	}
	return &s, nil
}

// watchedAtLayouts are the accepted watched_at forms without a zone; they are read as UTC.
var watchedAtLayouts = []string{
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04",
	"2006-01-02",
}

// ParseWatchedAt reads a watched_at value: YYYY-MM-DD (midnight), YYYY-MM-DDTHH:MM[:SS],
// YYYY-MM-DD HH:MM:SS (all UTC) or RFC 3339. The result is UTC, to the second.
func ParseWatchedAt(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	t, ok := parseWatchedAt(s)
	if !ok {
		return time.Time{}, Invalid("invalid date %q; expected YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS] or RFC 3339", s)
	}
	// Years outside 1..9999 in UTC do not survive the four-digit stored form.
	if y := t.Year(); y < 1 || y > 9999 {
		return time.Time{}, Invalid("watched_at %q is out of range", s)
	}
	return t, nil
}

func parseWatchedAt(s string) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC().Truncate(time.Second), true
	}
	for _, layout := range watchedAtLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC().Truncate(time.Second), true
		}
	}
	return time.Time{}, false
}

// WatchMedium is how a movie was watched.
type WatchMedium string

// The watch media a review can name.
const (
	MediumCinema        WatchMedium = "cinema"
	MediumStreaming     WatchMedium = "streaming"
	MediumTV            WatchMedium = "tv"
	MediumPhysicalMedia WatchMedium = "physical_media"
	MediumDownload      WatchMedium = "download"
	MediumMediaServer   WatchMedium = "media_server"
	MediumOther         WatchMedium = "other"
)

// WatchMedia lists every WatchMedium, in the order clients show them.
var WatchMedia = []WatchMedium{
	MediumCinema, MediumStreaming, MediumTV, MediumPhysicalMedia, MediumDownload, MediumMediaServer, MediumOther,
}

// UnmarshalText accepts only a known medium.
func (m *WatchMedium) UnmarshalText(b []byte) error {
	for _, known := range WatchMedia {
		if string(b) == string(known) {
			*m = known
			return nil
		}
	}
	return Invalid("unknown watch_medium %q", string(b))
}
