package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/usecase/movie"
)

// UnresolvedMovies lists movies without an external id, oldest first, with their review counts
// and resolution stamps (see movie.MergeStore).
func (s *Store) UnresolvedMovies(ctx context.Context, limit int) ([]movie.Unresolved, error) {
	var rows []struct {
		sqlrow.Movie
		Reviews     int              `db:"reviews"`
		RequestedAt sql.Null[string] `db:"resolution_requested_at"`
		AttemptedAt sql.Null[string] `db:"resolution_attempted_at"`
		DuplicateOf sql.Null[string] `db:"duplicate_of"`
	}
	err := s.read.SelectContext(ctx, &rows, `SELECT `+sqlrow.MovieColumns+`,
		CAST(coalesce((SELECT sum(st.n) FROM movie_review_stats st WHERE st.movie_id = m.id), 0) AS BIGINT) AS reviews,
		m.resolution_requested_at, m.resolution_attempted_at, m.duplicate_of
		FROM movies m
		WHERE m.external_metadata_id IS NULL ORDER BY m.created_at, m.id LIMIT CAST(? AS INTEGER)`, limit)
	if err != nil {
		return nil, fmt.Errorf("unresolved movies: %w", err)
	}
	out := make([]movie.Unresolved, 0, len(rows))
	for _, r := range rows {
		m, err := r.Movie.Movie()
		if err != nil {
			return nil, err
		}
		u := movie.Unresolved{Movie: m, Reviews: r.Reviews}
		for _, stamp := range []struct {
			raw sql.Null[string]
			dst **time.Time
		}{{r.RequestedAt, &u.RequestedAt}, {r.AttemptedAt, &u.AttemptedAt}} {
			if stamp.raw.Valid {
				t, err := sqlrow.ParseTime(stamp.raw.V)
				if err != nil {
					return nil, fmt.Errorf("movie %s: %w", m.ID, err)
				}
				*stamp.dst = &t
			}
		}
		if r.DuplicateOf.Valid {
			id, err := uuid.Parse(r.DuplicateOf.V)
			if err != nil {
				return nil, fmt.Errorf("movie %s: duplicate_of: %w", m.ID, err)
			}
			u.DuplicateOf = &id
		}
		out = append(out, u)
	}
	return out, nil
}

// CatalogEntries returns every movie's identity, by title (see movie.MergeStore).
func (s *Store) CatalogEntries(ctx context.Context) ([]movie.CatalogEntry, error) {
	var rows []struct {
		ID          uuid.UUID        `db:"id"`
		Title       string           `db:"title"`
		Year        sql.Null[int]    `db:"release_year"`
		ExternalID  sql.Null[string] `db:"external_metadata_id"`
		DuplicateOf sql.Null[string] `db:"duplicate_of"`
	}
	if err := s.read.SelectContext(ctx, &rows, `SELECT id, title, release_year, external_metadata_id, duplicate_of
		FROM movies ORDER BY created_at, id`); err != nil {
		return nil, fmt.Errorf("catalog entries: %w", err)
	}
	out := make([]movie.CatalogEntry, len(rows))
	for i, r := range rows {
		out[i] = movie.CatalogEntry{ID: r.ID, Title: r.Title, Year: r.Year.V, ExternalID: nullPtr(r.ExternalID)}
		if r.DuplicateOf.Valid {
			id, err := uuid.Parse(r.DuplicateOf.V)
			if err != nil {
				return nil, fmt.Errorf("movie %s: duplicate_of: %w", r.ID, err)
			}
			out[i].DuplicateOf = &id
		}
	}
	return out, nil
}
