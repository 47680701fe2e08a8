package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/watchlist"
)

// AddToWatchlist stores the movie if it is new and adds it to the user's watchlist, with the new
// movie's events and WatchlistEntryAdded, in one transaction. An entry already there is left as
// it is and causes no event.
func (s *Store) AddToWatchlist(ctx context.Context, userID uuid.UUID, m domain.Movie, now time.Time) (domain.Movie, error) {
	movie, _, err := s.addToWatchlist(ctx, userID, m, now, false)
	return movie, err
}

// RestoreWatchlistEntry puts a movie on the user's watchlist as an account archive holds it:
// added at addedAt, quiet (federation does not announce an old entry). It reports whether the
// entry is new; one already there is left as it is.
func (s *Store) RestoreWatchlistEntry(ctx context.Context, userID uuid.UUID, m domain.Movie, addedAt time.Time) (domain.Movie, bool, error) {
	return s.addToWatchlist(ctx, userID, m, addedAt, true)
}

func (s *Store) addToWatchlist(ctx context.Context, userID uuid.UUID, m domain.Movie, now time.Time, quiet bool) (domain.Movie, bool, error) {
	var movie domain.Movie
	var added bool
	err := s.write(ctx, func(tx *Tx) error {
		var events []domain.Event
		var err error
		movie, events, err = s.ensureMovie(ctx, tx, m)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO watchlist (user_id, movie_id, added_at) VALUES (?, ?, ?)
			ON CONFLICT DO NOTHING`, userID.String(), movie.ID.String(), sqlrow.FormatTime(now))
		if err != nil {
			return fmt.Errorf("insert watchlist entry: %w", err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			added = true
			events = append(events, domain.WatchlistEntryAdded{
				UserID: userID, MovieID: movie.ID, MovieTitle: movie.Title, ReleaseYear: uint16(movie.ReleaseYear),
				ExternalMetadataID: movie.ExternalID, AddedAt: domain.NewUnixTime(now), Quiet: quiet,
			})
		}
		return s.enqueue(ctx, tx, events...)
	})
	if err != nil {
		return domain.Movie{}, false, fmt.Errorf("add to watchlist: %w", err)
	}
	return movie, added, nil
}

// RemoveFromWatchlist removes an entry with WatchlistEntryRemoved, and the movie if nothing else
// refers to it (with MovieDeleted), in one transaction. Where writers run concurrently the movie
// is locked before the entry is deleted, as DeleteReview does: a review of it being logged
// meanwhile (which deletes this entry too) is waited for, and the two never deadlock on the
// entry and the movie.
func (s *Store) RemoveFromWatchlist(ctx context.Context, userID, movieID uuid.UUID) error {
	err := s.write(ctx, func(tx *Tx) error {
		if err := s.lock(ctx, tx, "movie", `SELECT 1 FROM movies WHERE id = ? FOR UPDATE`, movieID.String()); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM watchlist WHERE user_id = ? AND movie_id = ?`,
			userID.String(), movieID.String())
		if err != nil {
			return fmt.Errorf("delete watchlist entry: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return domain.NotFound("Watchlist entry for movie %s not found", movieID)
		}
		events, err := s.deleteMovieIfOrphan(ctx, tx, movieID,
			[]domain.Event{domain.WatchlistEntryRemoved{UserID: userID, MovieID: movieID}})
		if err != nil {
			return err
		}
		return s.enqueue(ctx, tx, events...)
	})
	if err != nil {
		return fmt.Errorf("remove from watchlist: %w", err)
	}
	return nil
}

// Watchlist returns a page of a user's watchlist, newest first.
func (s *Store) Watchlist(ctx context.Context, userID uuid.UUID, p domain.Page) (domain.Paged[watchlist.Entry], error) {
	out := domain.Paged[watchlist.Entry]{Page: p}
	if err := s.read.GetContext(ctx, &out.Total, `SELECT count(*) FROM watchlist WHERE user_id = ?`, userID.String()); err != nil {
		return out, fmt.Errorf("count watchlist: %w", err)
	}
	rows := sqlrow.PageOf[sqlrow.WatchlistEntry](p, out.Total)
	err := s.read.SelectContext(ctx, &rows, `SELECT `+sqlrow.MovieColumns+`, w.added_at FROM watchlist w
		JOIN movies m ON m.id = w.movie_id WHERE w.user_id = ? ORDER BY w.added_at DESC, m.id LIMIT CAST(? AS INTEGER) OFFSET CAST(? AS INTEGER)`,
		userID.String(), p.Limit, p.Offset)
	if err != nil {
		return out, fmt.Errorf("list watchlist: %w", err)
	}
	if out.Items, err = sqlrow.MapRows(rows, sqlrow.WatchlistEntry.Entry); err != nil {
		return out, fmt.Errorf("list watchlist: %w", err)
	}
	return out, nil
}

// OnWatchlist reports whether the movie is on the user's watchlist.
func (s *Store) OnWatchlist(ctx context.Context, userID, movieID uuid.UUID) (bool, error) {
	var on bool
	err := s.read.GetContext(ctx, &on, `SELECT EXISTS (SELECT 1 FROM watchlist WHERE user_id = ? AND movie_id = ?)`,
		userID.String(), movieID.String())
	if err != nil {
		return false, fmt.Errorf("watchlist lookup: %w", err)
	}
	return on, nil
}
