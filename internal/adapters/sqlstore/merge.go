package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/movie"
)

// One film, one movie (issue 32 §2): a movie found to be a film stored as another movie is
// merged into it and its id redirects there (movie_redirects, migration 0250).

// MergeMovies merges the movie from into the movie into (see movie.MergeStore). It runs in a
// transaction of its own: a movie with thousands of reviews must not hold up a group of small
// writes. A deadlock (a review of from deleted or edited meanwhile, see mergeMovies) runs it
// again on a fresh read.
func (s *Store) MergeMovies(ctx context.Context, from, into uuid.UUID, at time.Time, dryRun bool) (movie.MergeResult, error) {
	var res movie.MergeResult
	err := s.againOnDeadlock(func() error {
		return s.writeAlone(ctx, func(tx *Tx) error {
			var err error
			res, err = s.mergeMovies(ctx, tx, from, into, at, dryRun)
			return err
		})
	})
	if err != nil {
		return movie.MergeResult{}, fmt.Errorf("merge movie %s into %s: %w", from, into, err)
	}
	return res, nil
}

// mergeRef is what a merge reads of each of its movies.
type mergeRef struct {
	ID         uuid.UUID        `db:"id"`
	ExternalID sql.Null[string] `db:"external_metadata_id"`
	Title      string           `db:"title"`
	Year       sql.Null[int]    `db:"release_year"`
	PosterPath sql.Null[string] `db:"poster_path"`
}

// mergedReview is a review a merge moves.
type mergedReview struct {
	ID        uuid.UUID `db:"id"`
	UserID    uuid.UUID `db:"user_id"`
	Rating    int       `db:"rating"`
	WatchedAt string    `db:"watched_at"`
	Announced bool      `db:"announced"`
}

// mergeMovies merges from into into inside tx, and enqueues the events that causes.
//
// Where writers run concurrently both movies are locked first, in id order, and read again under
// the locks: from FOR UPDATE (it is deleted), into FOR KEY SHARE (reviews move to it; a delete of
// it as an orphan waits). A review of from being stored meanwhile holds from FOR KEY SHARE
// (ensureMovie) and is waited for, and then moved with the others; one that comes after waits
// for the merge, finds from gone, and follows its redirect (findMovie). A review of into needs
// nothing of the merge's and goes on beside it; the per-movie counts the triggers keep
// serialise the two on their row. So a merge is never half done: everything moves in one
// transaction, and whatever was written before it moves with it. The locks are PostgreSQL's:
// SQLite's one writer runs the merge alone.
func (s *Store) mergeMovies(ctx context.Context, tx *Tx, from, into uuid.UUID, at time.Time, dry bool) (movie.MergeResult, error) {
	if from == into {
		return movie.MergeResult{}, domain.Errorf(domain.KindInvalid, "movie %s cannot be merged into itself", from)
	}
	target, err := s.redirectOf(ctx, tx, into)
	if err != nil {
		return movie.MergeResult{}, err
	}
	res := movie.MergeResult{From: from, Into: target, DryRun: dry}
	if target == uuid.Nil {
		return res, domain.Errorf(domain.KindNotFound, "movie %s not found", into)
	}
	if from == target {
		return res, domain.Errorf(domain.KindInvalid, "movie %s was merged into %s already, not the other way round", into, from)
	}
	first, second := from, target
	if second.String() < first.String() {
		first, second = second, first
	}
	for _, id := range []uuid.UUID{first, second} {
		clause := "FOR KEY SHARE"
		if id == from {
			clause = "FOR UPDATE"
		}
		if err := s.lock(ctx, tx, "merged movie", `SELECT 1 FROM movies WHERE id = ? `+clause, id.String()); err != nil {
			return res, err
		}
	}
	var refs []mergeRef
	if err := tx.SelectContext(ctx, &refs, `SELECT id, external_metadata_id, title, release_year, poster_path FROM movies
		WHERE id IN (?, ?)`, from.String(), target.String()); err != nil {
		return res, fmt.Errorf("read merged movies: %w", err)
	}
	var src, dst *mergeRef
	for i := range refs {
		if refs[i].ID == from {
			src = &refs[i]
		} else {
			dst = &refs[i]
		}
	}
	if dst == nil {
		return res, domain.Errorf(domain.KindNotFound, "movie %s not found", into)
	}
	if src == nil {
		// Gone: merged already (a redelivery, a second operator), or no movie at all.
		var to string
		err := tx.GetContext(ctx, &to, `SELECT new_id FROM movie_redirects WHERE old_id = ?`, from.String())
		if err == nil && to == target.String() {
			res.AlreadyMerged = true
			return res, nil
		}
		if err == nil {
			return res, domain.Errorf(domain.KindConflict, "movie %s was merged into %s already", from, to)
		}
		if errors.Is(err, sql.ErrNoRows) {
			return res, domain.Errorf(domain.KindNotFound, "movie %s not found", from)
		}
		return res, fmt.Errorf("read movie redirect: %w", err)
	}
	if src.ExternalID.Valid && dst.ExternalID.Valid && src.ExternalID.V != dst.ExternalID.V &&
		src.ExternalID.V[:2] == dst.ExternalID.V[:2] {
		return res, domain.Errorf(domain.KindConflict, "movie %s is %s and movie %s is %s: two films, not merged",
			from, src.ExternalID.V, target, dst.ExternalID.V)
	}

	var reviews []mergedReview
	if err := tx.SelectContext(ctx, &reviews, `SELECT id, user_id, rating, watched_at,
		CASE WHEN remote_actor_url IS NULL AND NOT quiet THEN 1 ELSE 0 END AS announced
		FROM reviews WHERE movie_id = ? ORDER BY id`, from.String()); err != nil {
		return res, fmt.Errorf("read merged reviews: %w", err)
	}
	res.Reviews = len(reviews)
	for _, r := range reviews {
		if r.Announced {
			res.Announced++
		}
	}
	var entries []struct {
		UserID  uuid.UUID `db:"user_id"`
		AddedAt string    `db:"added_at"`
		Both    bool      `db:"on_both"`
	}
	if err := tx.SelectContext(ctx, &entries, `SELECT w.user_id, w.added_at,
		CASE WHEN EXISTS (SELECT 1 FROM watchlist k WHERE k.user_id = w.user_id AND k.movie_id = ?) THEN 1 ELSE 0 END AS on_both
		FROM watchlist w WHERE w.movie_id = ? ORDER BY w.user_id`, target.String(), from.String()); err != nil {
		return res, fmt.Errorf("read merged watchlist: %w", err)
	}
	for _, e := range entries {
		if e.Both {
			res.WatchlistKept++
		} else {
			res.Watchlist++
		}
	}
	if err := tx.GetContext(ctx, &res.WatchEvents, `SELECT count(*) FROM watch_events WHERE movie_id = ?`, from.String()); err != nil {
		return res, fmt.Errorf("count merged watch events: %w", err)
	}
	takeExternal := src.ExternalID.Valid && !dst.ExternalID.Valid
	if takeExternal {
		res.ExternalID = src.ExternalID.V
	}
	if dry {
		return res, nil
	}

	// The reviews move; the triggers keep movie_review_stats exact, row by row. A local review
	// is edited (its movie changed): its updated_at moves, so a remote server takes the Update.
	if _, err := tx.ExecContext(ctx, `UPDATE reviews SET movie_id = ?,
		updated_at = CASE WHEN remote_actor_url IS NULL THEN ? ELSE updated_at END WHERE movie_id = ?`,
		target.String(), sqlrow.FormatTime(at), from.String()); err != nil {
		return res, fmt.Errorf("move reviews: %w", err)
	}
	// A user with the film under both movies keeps into's entry.
	if _, err := tx.ExecContext(ctx, `INSERT INTO watchlist (user_id, movie_id, added_at)
		SELECT user_id, ?, added_at FROM watchlist WHERE movie_id = ?
		ON CONFLICT (user_id, movie_id) DO NOTHING`, target.String(), from.String()); err != nil {
		return res, fmt.Errorf("move watchlist entries: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM watchlist WHERE movie_id = ?`, from.String()); err != nil {
		return res, fmt.Errorf("move watchlist entries: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE watch_events SET movie_id = ? WHERE movie_id = ?`,
		target.String(), from.String()); err != nil {
		return res, fmt.Errorf("move watch events: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE movies SET duplicate_of = ? WHERE duplicate_of = ?`,
		target.String(), from.String()); err != nil {
		return res, fmt.Errorf("move duplicate marks: %w", err)
	}
	// One hop: what redirected to from redirects to into.
	if _, err := tx.ExecContext(ctx, `UPDATE movie_redirects SET new_id = ? WHERE new_id = ?`,
		target.String(), from.String()); err != nil {
		return res, fmt.Errorf("move movie redirects: %w", err)
	}
	// Its profile, credits and search document go with it (ON DELETE CASCADE).
	if _, err := tx.ExecContext(ctx, `DELETE FROM movies WHERE id = ?`, from.String()); err != nil {
		return res, fmt.Errorf("delete merged movie: %w", err)
	}
	var oldExternal any
	switch {
	case takeExternal:
		if _, err := tx.ExecContext(ctx, `UPDATE movies SET external_metadata_id = ?, duplicate_of = NULL,
			enrichment_requested_at = ?, tmdb_missing_at = NULL WHERE id = ?`,
			src.ExternalID.V, sqlrow.FormatTime(at), target.String()); err != nil {
			return res, fmt.Errorf("move external id: %w", err)
		}
	case src.ExternalID.Valid && src.ExternalID.V != dst.ExternalID.V:
		oldExternal = src.ExternalID.V
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO movie_redirects (old_id, new_id, old_external_id, merged_at)
		VALUES (?, ?, ?, ?)`, from.String(), target.String(), oldExternal, sqlrow.FormatTime(at)); err != nil {
		return res, fmt.Errorf("insert movie redirect: %w", err)
	}

	events := make([]domain.Event, 0, 2+res.Announced+2*len(entries)+2)
	events = append(events, domain.MoviesMerged{From: from, Into: target})
	deleted := domain.MovieDeleted{MovieID: from}
	if src.PosterPath.Valid && src.PosterPath != dst.PosterPath {
		deleted.PosterPath = &src.PosterPath.V
	}
	events = append(events, deleted)
	if takeExternal {
		events = append(events, domain.MovieDiscovered{MovieID: target, ExternalMetadataID: src.ExternalID.V},
			domain.MovieEnrichmentRequested{MovieID: target, ExternalMetadataID: src.ExternalID.V})
	}
	for _, r := range reviews {
		if !r.Announced {
			continue
		}
		watched, err := sqlrow.ParseTime(r.WatchedAt)
		if err != nil {
			return res, fmt.Errorf("review %s: watched_at: %w", r.ID, err)
		}
		events = append(events, domain.ReviewUpdated{ReviewID: r.ID, MovieID: target, UserID: r.UserID,
			Rating: uint8(r.Rating), WatchedAt: domain.NewUnixTime(watched)})
	}
	ext := dst.ExternalID
	if takeExternal {
		ext = src.ExternalID
	}
	for _, e := range entries {
		events = append(events, domain.WatchlistEntryRemoved{UserID: e.UserID, MovieID: from})
		if e.Both {
			continue
		}
		added, err := sqlrow.ParseTime(e.AddedAt)
		if err != nil {
			return res, fmt.Errorf("watchlist entry of %s: added_at: %w", e.UserID, err)
		}
		events = append(events, domain.WatchlistEntryAdded{UserID: e.UserID, MovieID: target, MovieTitle: dst.Title,
			ReleaseYear: uint16(dst.Year.V), ExternalMetadataID: nullPtr(ext), AddedAt: domain.NewUnixTime(added)})
	}
	return res, s.enqueue(ctx, tx, events...)
}

func nullPtr(v sql.Null[string]) *string {
	if !v.Valid {
		return nil
	}
	return &v.V
}

// redirectOf returns id when it is a movie, else the movie it redirects to, else uuid.Nil.
func (s *Store) redirectOf(ctx context.Context, q Queryer, id uuid.UUID) (uuid.UUID, error) {
	var got uuid.UUID
	err := sqlx.GetContext(ctx, q, &got, `SELECT id FROM movies WHERE id = ?`, id.String())
	if errors.Is(err, sql.ErrNoRows) {
		err = sqlx.GetContext(ctx, q, &got, `SELECT new_id FROM movie_redirects WHERE old_id = ?`, id.String())
	}
	if errors.Is(err, sql.ErrNoRows) {
		return uuid.Nil, nil
	}
	if err != nil {
		return uuid.Nil, fmt.Errorf("read movie redirect: %w", err)
	}
	return got, nil
}
