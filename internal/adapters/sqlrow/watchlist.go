package sqlrow

import "moviesdiary/internal/usecase/watchlist"

// WatchlistEntry is a movie on a watchlist.
type WatchlistEntry struct {
	Movie
	AddedAt string `db:"added_at"`
}

// Entry maps the row to its domain value.
func (r WatchlistEntry) Entry() (watchlist.Entry, error) {
	m, err := r.Movie.Movie()
	if err != nil {
		return watchlist.Entry{}, err
	}
	t, err := ParseTime(r.AddedAt)
	return watchlist.Entry{Movie: m, AddedAt: t}, err
}
