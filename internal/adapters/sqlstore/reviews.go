package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/review"
)

// LogReview stores a review in one transaction with its movie (if new), the removal of that
// movie from the user's watchlist, and their events: MovieDiscovered and
// MovieEnrichmentRequested for a new movie, WatchlistEntryRemoved, ReviewLogged. With idem set,
// the key is claimed in the same transaction; a key the user already used returns the first
// result and writes nothing, and one used for another request is a conflict. Two requests with
// one key at once both miss it at first; the second's claim then waits for the first and fails
// on the key, and the whole transaction runs again, finding the first's result.
//
// A deadlock on the feed counts (see againOnDeadlock) runs it again too.
func (s *Store) LogReview(ctx context.Context, r domain.Review, m domain.Movie, idem *review.Idempotency) (review.Logged, error) {
	var out review.Logged
	err := s.againOnDeadlock(func() (err error) {
		out, err = s.logReviewOnce(ctx, r, m, idem)
		return err
	})
	if c, unique := s.d.UniqueViolation(err); unique && c == "idempotency_keys_pkey" {
		err = s.againOnDeadlock(func() (err error) {
			out, err = s.logReviewOnce(ctx, r, m, idem)
			return err
		})
	}
	if err != nil {
		return review.Logged{}, fmt.Errorf("log review: %w", err)
	}
	return out, nil
}

func (s *Store) logReviewOnce(ctx context.Context, r domain.Review, m domain.Movie, idem *review.Idempotency) (review.Logged, error) {
	var out review.Logged
	err := s.write(ctx, func(tx *Tx) error {
		if idem != nil {
			first, found, err := replay(ctx, tx, r.UserID, *idem)
			if err != nil || found {
				out = first
				return err
			}
		}
		movie, events, err := s.logReview(ctx, tx, &r, m)
		if err != nil {
			return err
		}
		if idem != nil {
			if _, err := tx.ExecContext(ctx, `INSERT INTO idempotency_keys (user_id, key, request_hash, review_id, created_at)
				VALUES (?, ?, ?, ?, ?)`, r.UserID.String(), idem.Key, idem.RequestHash, r.ID.String(), sqlrow.Millis(s.now())); err != nil {
				return fmt.Errorf("store idempotency key: %w", err)
			}
		}
		out = review.Logged{Review: r, Movie: movie}
		return s.enqueue(ctx, tx, events...)
	})
	return out, err
}

// logReview is the part of LogReview every way of logging a review shares: it stores m if new,
// r for it (setting r.MovieID), removes the movie from the user's watchlist, and returns the
// events that causes (the new movie's, WatchlistEntryRemoved, ReviewLogged) for the caller to
// enqueue in the same transaction.
func (s *Store) logReview(ctx context.Context, tx *Tx, r *domain.Review, m domain.Movie) (domain.Movie, []domain.Event, error) {
	movie, events, err := s.ensureMovie(ctx, tx, m)
	if err != nil {
		return domain.Movie{}, nil, err
	}
	r.MovieID = movie.ID
	if err := s.lockFeedCounts(ctx, tx, r.ID, r.UserID); err != nil {
		return domain.Movie{}, nil, err
	}
	if err := insertReview(ctx, tx, *r); err != nil {
		return domain.Movie{}, nil, err
	}
	removed, err := tx.ExecContext(ctx, `DELETE FROM watchlist WHERE user_id = ? AND movie_id = ?`,
		r.UserID.String(), movie.ID.String())
	if err != nil {
		return domain.Movie{}, nil, fmt.Errorf("remove from watchlist: %w", err)
	}
	if n, _ := removed.RowsAffected(); n > 0 {
		events = append(events, domain.WatchlistEntryRemoved{UserID: r.UserID, MovieID: movie.ID})
	}
	events = append(events, domain.ReviewLogged{
		ReviewID: r.ID, MovieID: movie.ID, UserID: r.UserID, Rating: uint8(r.Rating),
		WatchedAt: domain.NewUnixTime(r.WatchedAt),
	})
	return movie, events, nil
}

// replay returns the result of the request that first used an idempotency key.
func replay(ctx context.Context, tx *Tx, userID uuid.UUID, idem review.Idempotency) (review.Logged, bool, error) {
	var key struct {
		RequestHash string `db:"request_hash"`
		ReviewID    string `db:"review_id"`
	}
	err := tx.GetContext(ctx, &key, `SELECT request_hash, review_id FROM idempotency_keys WHERE user_id = ? AND key = ?`,
		userID.String(), idem.Key)
	if errors.Is(err, sql.ErrNoRows) {
		return review.Logged{}, false, nil
	}
	if err != nil {
		return review.Logged{}, false, fmt.Errorf("read idempotency key: %w", err)
	}
	if key.RequestHash != idem.RequestHash {
		return review.Logged{}, false, domain.Errorf(domain.KindConflict,
			"Idempotency-Key %q was already used for a different request", idem.Key)
	}
	r, err := reviewWhere(ctx, tx, `r.id = ?`, key.ReviewID)
	if err != nil {
		if domain.KindOf(err) == domain.KindNotFound {
			return review.Logged{}, false, domain.Errorf(domain.KindConflict,
				"Idempotency-Key %q belongs to a review that was deleted", idem.Key)
		}
		return review.Logged{}, false, err
	}
	m, err := movieWhere(ctx, tx, `m.id = ?`, r.MovieID.String())
	if err != nil {
		return review.Logged{}, false, err
	}
	return review.Logged{Review: r, Movie: m, Replayed: true}, true, nil
}

// insertReview stores a local review.
func insertReview(ctx context.Context, tx *Tx, r domain.Review) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO reviews (id, user_id, movie_id, rating, rating_precise, rewatch, comment,
		watch_medium, watched_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID.String(), r.UserID.String(), r.MovieID.String(), r.Rating, sqlrow.NullOf(r.RatingPrecise), r.Rewatch,
		sqlrow.NullString(r.Comment),
		sqlrow.MediumValue(r.WatchMedium), sqlrow.FormatTime(r.WatchedAt), sqlrow.FormatTime(r.CreatedAt), sqlrow.FormatTime(r.UpdatedAt))
	if err != nil {
		return fmt.Errorf("insert review: %w", err)
	}
	return nil
}

// reviewWhere returns the review selected by where (over reviews r), read through q.
func reviewWhere(ctx context.Context, q Queryer, where string, args ...any) (domain.Review, error) {
	var row sqlrow.Review
	if err := sqlx.GetContext(ctx, q, &row, `SELECT `+sqlrow.ReviewColumns+` FROM reviews r WHERE `+where, args...); err != nil {
		return domain.Review{}, sqlrow.NotFound(err, "Entity not found: review")
	}
	return row.Review()
}

// UpdateReview loads a review, applies update and saves the result with ReviewUpdated, in one
// transaction. The review is read FOR UPDATE: two edits on any hosts take turns, and the second
// applies its change to the first's result.
//
// A deadlock on the feed counts (see againOnDeadlock) runs it again on a fresh read.
func (s *Store) UpdateReview(ctx context.Context, id uuid.UUID, update func(*domain.Review) error) (domain.Review, error) {
	var r domain.Review
	err := s.againOnDeadlock(func() error { return s.updateReviewOnce(ctx, id, update, &r) })
	if err != nil {
		return domain.Review{}, fmt.Errorf("edit review: %w", err)
	}
	return r, nil
}

func (s *Store) updateReviewOnce(ctx context.Context, id uuid.UUID, update func(*domain.Review) error, out *domain.Review) error {
	return s.write(ctx, func(tx *Tx) error {
		r, err := reviewWhere(ctx, tx, `r.id = ?`+s.forUpdate(), id.String())
		if err != nil {
			return err
		}
		if err := update(&r); err != nil {
			return err
		}
		r.DropStalePrecision()
		if err := s.lockFeedCounts(ctx, tx, r.ID, r.UserID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE reviews SET rating = ?, rating_precise = ?, rewatch = ?, comment = ?,
			watch_medium = ?, watched_at = ?, updated_at = ? WHERE id = ?`, r.Rating, sqlrow.NullOf(r.RatingPrecise), r.Rewatch,
			sqlrow.NullString(r.Comment), sqlrow.MediumValue(r.WatchMedium),
			sqlrow.FormatTime(r.WatchedAt), sqlrow.FormatTime(r.UpdatedAt), id.String())
		if err != nil {
			return fmt.Errorf("update review: %w", err)
		}
		*out = r
		return s.enqueue(ctx, tx, domain.ReviewUpdated{
			ReviewID: r.ID, MovieID: r.MovieID, UserID: r.UserID, Rating: uint8(r.Rating),
			WatchedAt: domain.NewUnixTime(r.WatchedAt),
		})
	})
}

// DeleteReview deletes a review that check allows, and its movie if nothing else refers to it,
// with ReviewDeleted and MovieDeleted, in one transaction. The review is read FOR UPDATE, and
// its movie is locked before anything is written (deleteMovieIfOrphan says why): a transaction
// storing a review of the movie meanwhile is waited for before this one touches the review
// counts the triggers keep, which that one updates too, so the two never deadlock. A deadlock on
// the feed counts (see againOnDeadlock) runs it again.
func (s *Store) DeleteReview(ctx context.Context, id uuid.UUID, check func(domain.Review) error) error {
	err := s.againOnDeadlock(func() error { return s.deleteReviewOnce(ctx, id, check) })
	if err != nil {
		return fmt.Errorf("delete review: %w", err)
	}
	return nil
}

func (s *Store) deleteReviewOnce(ctx context.Context, id uuid.UUID, check func(domain.Review) error) error {
	return s.write(ctx, func(tx *Tx) error {
		r, err := reviewWhere(ctx, tx, `r.id = ?`+s.forUpdate(), id.String())
		if err != nil {
			return err
		}
		if err := check(r); err != nil {
			return err
		}
		if err := s.lock(ctx, tx, "movie", `SELECT 1 FROM movies WHERE id = ? FOR UPDATE`, r.MovieID.String()); err != nil {
			return err
		}
		if err := s.lockFeedCounts(ctx, tx, r.ID, r.UserID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM reviews WHERE id = ?`, id.String()); err != nil {
			return fmt.Errorf("delete review: %w", err)
		}
		events, err := s.deleteMovieIfOrphan(ctx, tx, r.MovieID,
			[]domain.Event{domain.ReviewDeleted{ReviewID: r.ID, UserID: r.UserID, Quiet: r.Quiet}})
		if err != nil {
			return err
		}
		return s.enqueue(ctx, tx, events...)
	})
}
