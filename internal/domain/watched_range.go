package domain

import "time"

// The range a watched_at may take: not before the first film (Louis Le Prince's Roundhay Garden
// Scene, 1888) and not more than a day ahead of the clock (a client's time zone or clock skew,
// not a date typed wrong, such as 9999-12-31).
var (
	EarliestWatchedAt = time.Date(1888, 1, 1, 0, 0, 0, 0, time.UTC)
	// WatchedAtAhead is how far past now a watched_at may lie.
	WatchedAtAhead = 24 * time.Hour
)

// CheckWatchedAt refuses a watched_at outside [EarliestWatchedAt, now + WatchedAtAhead] with a
// KindInvalid error.
func CheckWatchedAt(t, now time.Time) error {
	switch {
	case t.Before(EarliestWatchedAt):
		return Invalid("watched_at %s is before %d: no film is that old", t.UTC().Format(time.DateOnly), EarliestWatchedAt.Year())
	case t.After(now.Add(WatchedAtAhead)):
		return Invalid("watched_at %s is in the future", t.UTC().Format(time.DateTime))
	}
	return nil
}
