package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/movie"
)

// SaveMovieResolution records that the manual movie id is the film externalID names (see
// movie.ResolutionStore). Where writers run concurrently the manual movie is locked first (FOR
// NO KEY UPDATE) and the holder FOR KEY SHARE; two resolutions of different manual movies to one
// film that race both find no holder, and the UNIQUE external id fails the second, whose retry
// then merges it into the first. A film already stored is merged into (mergeMovies) in the same
// transaction, which a deadlock with a review of the movie runs again.
func (s *Store) SaveMovieResolution(ctx context.Context, id uuid.UUID, externalID string, at time.Time) (movie.ResolutionResult, error) {
	var res movie.ResolutionResult
	err := s.againOnDeadlock(func() error {
		return s.write(ctx, func(tx *Tx) error {
			var err error
			res, err = s.resolveMovie(ctx, tx, id, externalID, at, false, false)
			return err
		})
	})
	if err != nil {
		return movie.ResolutionResult{}, fmt.Errorf("save movie resolution: %w", err)
	}
	return res, nil
}

// ResolveMovie gives a movie an external id by hand (see movie.MergeStore).
func (s *Store) ResolveMovie(ctx context.Context, id uuid.UUID, externalID string, at time.Time, dryRun bool) (movie.ResolutionResult, error) {
	var res movie.ResolutionResult
	err := s.againOnDeadlock(func() error {
		return s.writeAlone(ctx, func(tx *Tx) error {
			var err error
			res, err = s.resolveMovie(ctx, tx, id, externalID, at, dryRun, true)
			return err
		})
	})
	return res, err
}

// resolveMovie is SaveMovieResolution and ResolveMovie: strict (an operator's command) reports a
// movie gone or resolved otherwise as an error, where the background resolution leaves it be.
func (s *Store) resolveMovie(ctx context.Context, tx *Tx, id uuid.UUID, externalID string, at time.Time, dry, strict bool) (movie.ResolutionResult, error) {
	var res movie.ResolutionResult
	var current sql.Null[string]
	err := tx.GetContext(ctx, &current, `SELECT external_metadata_id FROM movies WHERE id = ?`+s.locking("FOR NO KEY UPDATE"),
		id.String())
	switch {
	case errors.Is(err, sql.ErrNoRows) && strict:
		if to, rerr := s.redirectOf(ctx, tx, id); rerr == nil && to != uuid.Nil {
			return res, domain.Errorf(domain.KindConflict, "movie %s was merged into %s: resolve that one", id, to)
		}
		return res, domain.Errorf(domain.KindNotFound, "movie %s not found", id)
	case errors.Is(err, sql.ErrNoRows):
		return res, nil // gone
	case err != nil:
		return res, err
	case current.Valid && strict && current.V != externalID:
		return res, domain.Errorf(domain.KindConflict, "movie %s is %s already", id, current.V)
	case current.Valid:
		return res, nil // resolved meanwhile
	}
	holder, err := movieHolding(ctx, tx, externalID, s.locking("FOR KEY SHARE"))
	switch {
	case err == nil:
		res.DuplicateOf = holder.ID
		res.Merge, err = s.mergeMovies(ctx, tx, id, holder.ID, at, dry)
		return res, err
	case domain.KindOf(err) != domain.KindNotFound:
		return res, err
	}
	res.Resolved = true
	if dry {
		return res, nil
	}
	_, err = tx.ExecContext(ctx, `UPDATE movies SET external_metadata_id = ?, duplicate_of = NULL,
		resolution_attempted_at = ?, enrichment_requested_at = ?, tmdb_missing_at = NULL WHERE id = ?`,
		externalID, sqlrow.FormatTime(at), sqlrow.FormatTime(at), id.String())
	if err != nil {
		return res, err
	}
	return res, s.enqueue(ctx, tx, domain.MovieDiscovered{MovieID: id, ExternalMetadataID: externalID},
		domain.MovieEnrichmentRequested{MovieID: id, ExternalMetadataID: externalID})
}

// MarkMovieResolutionAttempt records a resolution without a confident match.
func (s *Store) MarkMovieResolutionAttempt(ctx context.Context, id uuid.UUID, at time.Time) error {
	err := s.write(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE movies SET resolution_attempted_at = ? WHERE id = ?`, sqlrow.FormatTime(at), id.String())
		return err
	})
	if err != nil {
		return fmt.Errorf("mark movie resolution attempt: %w", err)
	}
	return nil
}

// RequestMovieResolutions enqueues MovieResolutionRequested for at most limit unresolved movies
// (no external id, not marked a duplicate) and stamps them, in one transaction: those never
// requested (movies of databases older than resolution, adopted ones), those requested longer
// than requestedWithin ago without an attempt (a worker without a TMDb key let it pass), and
// those whose last attempt found no match longer than retryAfter ago. Oldest movies first.
func (s *Store) RequestMovieResolutions(ctx context.Context, now time.Time, retryAfter, requestedWithin time.Duration, limit int) (int, error) {
	n := 0
	err := s.write(ctx, func(tx *Tx) error {
		var ids []string
		err := tx.SelectContext(ctx, &ids, `SELECT m.id FROM movies m
			WHERE m.external_metadata_id IS NULL AND m.duplicate_of IS NULL
				AND (m.resolution_requested_at IS NULL OR m.resolution_requested_at < ?)
				AND (m.resolution_attempted_at IS NULL OR m.resolution_attempted_at < ?)
			ORDER BY m.created_at, m.id LIMIT CAST(? AS INTEGER)`+s.locking("FOR UPDATE OF m SKIP LOCKED"),
			sqlrow.FormatTime(now.Add(-requestedWithin)), sqlrow.FormatTime(now.Add(-retryAfter)), limit)
		if err != nil || len(ids) == 0 {
			return err
		}
		events := make([]domain.Event, len(ids))
		for i, raw := range ids {
			id, err := uuid.Parse(raw)
			if err != nil {
				return fmt.Errorf("movie id %q: %w", raw, err)
			}
			events[i] = domain.MovieResolutionRequested{MovieID: id}
		}
		if _, err := tx.execIn(ctx, `UPDATE movies SET resolution_requested_at = ? WHERE id IN (?)`, sqlrow.FormatTime(now), ids); err != nil {
			return err
		}
		n = len(events)
		return s.enqueue(ctx, tx, events...)
	})
	if err != nil {
		return 0, fmt.Errorf("request movie resolutions: %w", err)
	}
	return n, nil
}
