package sqlstore

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

// movieWhere returns the movie selected by where (over movies m), read through q: the read pool
// or a write transaction.
func movieWhere(ctx context.Context, q Queryer, where string, args ...any) (domain.Movie, error) {
	var row sqlrow.Movie
	if err := sqlx.GetContext(ctx, q, &row, `SELECT `+sqlrow.MovieColumns+` FROM movies m WHERE `+where, args...); err != nil {
		return domain.Movie{}, sqlrow.NotFound(err, "Entity not found: movie")
	}
	return row.Movie()
}

// MovieByID returns the movie; for the id of a movie merged into another (movie_redirects), that
// other movie, so old links keep working: a caller that cares compares the ids.
func (s *Store) MovieByID(ctx context.Context, id uuid.UUID) (domain.Movie, error) {
	return movieByID(ctx, s.read, id, "")
}

// movieByID returns the movie with the id, or the one it was merged into, read through q with
// lock a locking clause or "".
func movieByID(ctx context.Context, q Queryer, id uuid.UUID, lock string) (domain.Movie, error) {
	m, err := movieWhere(ctx, q, `m.id = ?`+lock, id.String())
	if domain.KindOf(err) != domain.KindNotFound {
		return m, err
	}
	merged, rerr := movieWhere(ctx, q, `m.id = (SELECT r.new_id FROM movie_redirects r WHERE r.old_id = ?)`+lock, id.String())
	if rerr == nil || domain.KindOf(rerr) != domain.KindNotFound {
		return merged, rerr
	}
	return m, err
}

// MovieByExternalID returns the movie with that external id.
func (s *Store) MovieByExternalID(ctx context.Context, externalID string) (domain.Movie, error) {
	return movieHolding(ctx, s.read, externalID, "")
}

// movieHolding returns the movie that holds an external id (at most one does: the column is
// UNIQUE), read through q, the read pool or a write transaction, with lock a locking clause
// (s.locking) or ""; KindNotFound when none does. Resolution uses it to find the film a manual
// movie turned out to be; a merge of the two finds it the same way. An external id a movie
// merged into another had (movie_redirects.old_external_id) names that other movie.
func movieHolding(ctx context.Context, q Queryer, externalID, lock string) (domain.Movie, error) {
	m, err := movieWhere(ctx, q, `m.external_metadata_id = ?`+lock, externalID)
	if domain.KindOf(err) != domain.KindNotFound {
		return m, err
	}
	merged, rerr := movieWhere(ctx, q, `m.id = (SELECT r.new_id FROM movie_redirects r WHERE r.old_external_id = ?)`+lock,
		externalID)
	if rerr == nil || domain.KindOf(rerr) != domain.KindNotFound {
		return merged, rerr
	}
	return m, err
}

// ensureMovie returns the stored movie m names, storing it first when it is new, with the events
// a new movie causes: MovieDiscovered and MovieEnrichmentRequested when it has an external id,
// the request stamped in enrichment_requested_at in the same insert so the worker's staleness
// job does not request the movie a second time (it retries only a request a day old). A
// movie with an external id or an id is looked up by them; one with neither (typed in by hand)
// is matched on title and year, and on the director when one is given. The year goes through a
// CAST: compared bare to the indexed column before an ORDER BY, an integer parameter made SQLite
// prepare the statement again at every run (measured: 17 µs against 6 µs a lookup).
//
// Where writers run concurrently (PostgreSQL) the movie found is locked FOR KEY SHARE, so a
// concurrent DeleteReview cannot delete it as an orphan before the caller's review or watchlist
// row refers to it (the delete waits, then sees the new row; or it went first, and the lock finds
// no movie and a new one is stored); and two transactions storing the same film store one movie,
// by its external id or, typed in by hand, its manual key (insertMovie).
func (s *Store) ensureMovie(ctx context.Context, tx *Tx, m domain.Movie) (domain.Movie, []domain.Event, error) {
	found, err := s.findMovie(ctx, tx, m, s.locking("FOR KEY SHARE"))
	if err == nil {
		return found, nil, nil
	}
	if domain.KindOf(err) != domain.KindNotFound {
		return domain.Movie{}, nil, err
	}
	return s.insertMovie(ctx, tx, m)
}

// findMovie returns the stored movie m names: by external id, else by id, else by title and
// year (and director) without case, the oldest match; KindNotFound when there is none. An id or
// an external id of a movie merged into another names that other one (movie_redirects): a
// review of the merged movie stored while the merge ran waits for it, then lands on the movie
// it was merged into. lock is a locking clause for a write transaction, or "".
func (s *Store) findMovie(ctx context.Context, q Queryer, m domain.Movie, lock string) (found domain.Movie, err error) {
	switch {
	case m.ExternalID != nil:
		found, err = movieHolding(ctx, q, *m.ExternalID, lock)
	case m.ID != uuid.Nil:
		found, err = movieByID(ctx, q, m.ID, lock)
	case m.Director != nil:
		found, err = movieWhere(ctx, q, s.d.SameText("m.title")+` AND m.release_year = CAST(? AS INTEGER) AND `+
			s.d.SameText("m.director")+` ORDER BY m.created_at LIMIT 1`+lock, m.Title, m.ReleaseYear, *m.Director)
	default:
		found, err = movieWhere(ctx, q, s.d.SameText("m.title")+` AND m.release_year = CAST(? AS INTEGER)
			ORDER BY m.created_at LIMIT 1`+lock, m.Title, m.ReleaseYear)
	}
	return found, err
}

// insertMovie stores a new movie, with MovieDiscovered and MovieEnrichmentRequested when it has
// an external id, MovieResolutionRequested when it has none (the worker looks it up by title). A movie whose external id another transaction stored meanwhile is not stored
// twice: the insert waits for that transaction, does nothing, and the stored movie is returned
// (locked like ensureMovie's), with no event.
func (s *Store) insertMovie(ctx context.Context, tx *Tx, m domain.Movie) (domain.Movie, []domain.Event, error) {
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
	// A movie with an external id is requested for enrichment, one typed in by hand for
	// resolution (the other stamp stays NULL), in the same insert as the event.
	var requested, resolution any
	if m.ExternalID != nil {
		requested = sqlrow.FormatTime(s.now())
	} else {
		resolution = sqlrow.FormatTime(s.now())
	}
	// A film typed in by hand is unique on its manual key (migration 0290): a twin stored by a
	// concurrent transaction, or one whose title differs from this one only in case or spacing,
	// makes the insert do nothing, and that movie is returned.
	var key any
	conflict := "(external_metadata_id)"
	if m.ExternalID == nil {
		key, conflict = domain.ManualMovieKey(m.Title, m.ReleaseYear, m.Director), ""
	}
	// Positional, not NamedExec: sqlx parses a named query at every call (4.5 µs), and this
	// insert runs in the writer's group loop for every review of a new movie.
	res, err := tx.ExecContext(ctx, `INSERT INTO movies (id, external_metadata_id, title, release_year, director,
		poster_path, genres, runtime_minutes, original_language, overview, collection_name, enrichment_requested_at,
		resolution_requested_at, manual_key)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT `+conflict+` DO NOTHING`,
		m.ID.String(), sqlrow.NullString(m.ExternalID), m.Title, m.ReleaseYear, sqlrow.NullString(m.Director),
		sqlrow.NullString(m.PosterPath), string(genres), m.RuntimeMinutes, sqlrow.NullString(m.OriginalLanguage),
		sqlrow.NullString(m.Overview), sqlrow.NullString(m.CollectionName), requested, resolution, key)
	if err != nil {
		return domain.Movie{}, nil, fmt.Errorf("insert movie: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return domain.Movie{}, nil, fmt.Errorf("insert movie: %w", err)
	} else if n == 0 {
		if m.ExternalID == nil {
			found, err := movieWhere(ctx, tx, `m.manual_key = ?`+s.locking("FOR KEY SHARE"), key)
			return found, nil, err
		}
		found, err := movieWhere(ctx, tx, `m.external_metadata_id = ?`+s.locking("FOR KEY SHARE"), *m.ExternalID)
		return found, nil, err
	}
	if m.ExternalID == nil {
		return m, []domain.Event{domain.MovieResolutionRequested{MovieID: m.ID}}, nil
	}
	return m, []domain.Event{
		domain.MovieDiscovered{MovieID: m.ID, ExternalMetadataID: *m.ExternalID},
		domain.MovieEnrichmentRequested{MovieID: m.ID, ExternalMetadataID: *m.ExternalID},
	}, nil
}

// deleteMovieIfOrphan deletes a movie no review and no watchlist entry refers to any more, and
// returns events with MovieDeleted appended (with its poster key, for the worker to delete the
// object). Where writers run concurrently the movie is locked FOR UPDATE first: a transaction
// that is storing a review or a watchlist entry of it holds it FOR KEY SHARE (ensureMovie) and is
// waited for, and the delete, a statement of its own, then sees that row and keeps the movie.
// Without the lock the delete would cascade to a review committed meanwhile.
func (s *Store) deleteMovieIfOrphan(ctx context.Context, tx *Tx, id uuid.UUID, events []domain.Event) ([]domain.Event, error) {
	if err := s.lock(ctx, tx, "orphan movie", `SELECT 1 FROM movies WHERE id = ? FOR UPDATE`, id.String()); err != nil {
		return nil, err
	}
	var poster *string
	err := tx.GetContext(ctx, &poster, `DELETE FROM movies WHERE id = ?
		AND NOT EXISTS (SELECT 1 FROM reviews WHERE movie_id = ?)
		AND NOT EXISTS (SELECT 1 FROM watchlist WHERE movie_id = ?)
		RETURNING poster_path`, id.String(), id.String(), id.String())
	if errors.Is(err, sql.ErrNoRows) {
		return events, nil
	}
	if err != nil {
		return nil, fmt.Errorf("delete orphan movie: %w", err)
	}
	return append(events, domain.MovieDeleted{MovieID: id, PosterPath: poster}), nil
}
