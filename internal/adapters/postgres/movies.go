package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
)

// movieWhere returns the movie selected by where (over movies m), read through q: the pool or a
// write transaction.
func movieWhere(ctx context.Context, q sqlx.QueryerContext, where string, args ...any) (domain.Movie, error) {
	var row sqlrow.Movie
	if err := sqlx.GetContext(ctx, q, &row, `SELECT `+sqlrow.MovieColumns+` FROM movies m WHERE `+where, args...); err != nil {
		return domain.Movie{}, sqlrow.NotFound(err, "Entity not found: movie")
	}
	return row.Movie()
}

// MovieByID returns the movie.
func (s *Store) MovieByID(ctx context.Context, id uuid.UUID) (domain.Movie, error) {
	return movieWhere(ctx, s.db, `m.id = $1`, id.String())
}

// MovieByExternalID returns the movie with that external id.
func (s *Store) MovieByExternalID(ctx context.Context, externalID string) (domain.Movie, error) {
	return movieWhere(ctx, s.db, `m.external_metadata_id = $1`, externalID)
}

// ensureMovie returns the stored movie m names, storing it first when it is new, with the events
// a new movie causes (MovieDiscovered and MovieEnrichmentRequested when it has an external id),
// as the SQLite store's. Unlike SQLite's single writer, other transactions write beside this
// one: the movie found is locked FOR KEY SHARE, so a concurrent DeleteReview cannot delete it
// as an orphan before the caller's review or watchlist row refers to it (the delete waits, then
// sees the new row; or it went first, and the lock finds no movie and a new one is stored); and
// two transactions storing the same external id store one movie (insertMovie).
func (s *Store) ensureMovie(ctx context.Context, tx *sqlx.Tx, m domain.Movie) (domain.Movie, []domain.Event, error) {
	found, err := findMovie(ctx, tx, m, ` FOR KEY SHARE`)
	if err == nil {
		return found, nil, nil
	}
	if domain.KindOf(err) != domain.KindNotFound {
		return domain.Movie{}, nil, err
	}
	return s.insertMovie(ctx, tx, m)
}

// findMovie returns the stored movie m names: by external id, else by id, else by title and
// year (and director) without case, the oldest match; KindNotFound when there is none. lock is
// a locking clause for a write transaction, or "".
func findMovie(ctx context.Context, q sqlx.QueryerContext, m domain.Movie, lock string) (found domain.Movie, err error) {
	switch {
	case m.ExternalID != nil:
		found, err = movieWhere(ctx, q, `m.external_metadata_id = $1`+lock, *m.ExternalID)
	case m.ID != uuid.Nil:
		found, err = movieWhere(ctx, q, `m.id = $1`+lock, m.ID.String())
	case m.Director != nil:
		found, err = movieWhere(ctx, q, `lower(m.title) = lower($1) AND m.release_year = $2 AND lower(m.director) = lower($3)
			ORDER BY m.created_at LIMIT 1`+lock, m.Title, m.ReleaseYear, *m.Director)
	default:
		found, err = movieWhere(ctx, q, `lower(m.title) = lower($1) AND m.release_year = $2
			ORDER BY m.created_at LIMIT 1`+lock, m.Title, m.ReleaseYear)
	}
	return found, err
}

// insertMovie stores a new movie, with MovieDiscovered and MovieEnrichmentRequested when it has
// an external id. A movie whose external id another transaction stored meanwhile is not stored
// twice: the insert waits for that transaction, does nothing, and the stored movie is returned
// (locked like ensureMovie's), with no event.
func (s *Store) insertMovie(ctx context.Context, tx *sqlx.Tx, m domain.Movie) (domain.Movie, []domain.Event, error) {
	var err error
	if m.ID == uuid.Nil {
		if m.ID, err = uuid.NewV7(); err != nil {
			return domain.Movie{}, nil, err
		}
	}
	if m.Genres == nil {
		m.Genres = []string{}
	}
	genres, _ := json.Marshal(m.Genres)
	var requested any // NULL: a movie typed in by hand has nothing to enrich from
	if m.ExternalID != nil {
		requested = sqlrow.FormatTime(s.now())
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO movies (id, external_metadata_id, title, release_year, director,
		poster_path, genres, runtime_minutes, original_language, overview, collection_name, enrichment_requested_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (external_metadata_id) DO NOTHING`,
		m.ID.String(), sqlrow.NullString(m.ExternalID), m.Title, m.ReleaseYear, sqlrow.NullString(m.Director),
		sqlrow.NullString(m.PosterPath), string(genres), m.RuntimeMinutes, sqlrow.NullString(m.OriginalLanguage),
		sqlrow.NullString(m.Overview), sqlrow.NullString(m.CollectionName), requested)
	if err != nil {
		return domain.Movie{}, nil, fmt.Errorf("insert movie: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return domain.Movie{}, nil, fmt.Errorf("insert movie: %w", err)
	} else if n == 0 {
		found, err := movieWhere(ctx, tx, `m.external_metadata_id = $1 FOR KEY SHARE`, *m.ExternalID)
		return found, nil, err
	}
	if m.ExternalID == nil {
		return m, nil, nil
	}
	return m, []domain.Event{
		domain.MovieDiscovered{MovieID: m.ID, ExternalMetadataID: *m.ExternalID},
		domain.MovieEnrichmentRequested{MovieID: m.ID, ExternalMetadataID: *m.ExternalID},
	}, nil
}

// deleteMovieIfOrphan deletes a movie no review and no watchlist entry refers to any more, and
// returns events with MovieDeleted appended (with its poster key, for the worker to delete the
// object). The movie is locked FOR UPDATE first: a transaction that is storing a review or a
// watchlist entry of it holds it FOR KEY SHARE (ensureMovie) and is waited for, and the delete,
// a statement of its own, then sees that row and keeps the movie. Without the lock the delete
// would cascade to a review committed meanwhile.
func deleteMovieIfOrphan(ctx context.Context, tx *sqlx.Tx, id uuid.UUID, events []domain.Event) ([]domain.Event, error) {
	if _, err := tx.ExecContext(ctx, `SELECT 1 FROM movies WHERE id = $1 FOR UPDATE`, id.String()); err != nil {
		return nil, fmt.Errorf("lock orphan movie: %w", err)
	}
	var poster *string
	err := tx.GetContext(ctx, &poster, `DELETE FROM movies WHERE id = $1
		AND NOT EXISTS (SELECT 1 FROM reviews WHERE movie_id = $1)
		AND NOT EXISTS (SELECT 1 FROM watchlist WHERE movie_id = $1)
		RETURNING poster_path`, id.String())
	if errors.Is(err, sql.ErrNoRows) {
		return events, nil
	}
	if err != nil {
		return nil, fmt.Errorf("delete orphan movie: %w", err)
	}
	return append(events, domain.MovieDeleted{MovieID: id, PosterPath: poster}), nil
}
