package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/enrichment"
)

// MovieEnrichmentState returns when the movie's profile was written and when TMDb last said it
// does not know the movie; KindNotFound when the movie is gone.
func (s *Store) MovieEnrichmentState(ctx context.Context, id uuid.UUID) (enrichment.State, error) {
	var row sqlrow.Enrichment
	err := s.read.GetContext(ctx, &row, `SELECT p.enriched_at, m.tmdb_missing_at FROM movies m
		LEFT JOIN movie_profiles p ON p.movie_id = m.id WHERE m.id = ?`, id.String())
	if err != nil {
		return enrichment.State{}, sqlrow.NotFound(err, "Entity not found: movie")
	}
	return row.State()
}

// PersonEnrichmentState is MovieEnrichmentState for a person.
func (s *Store) PersonEnrichmentState(ctx context.Context, id uuid.UUID) (enrichment.State, error) {
	var row sqlrow.Enrichment
	err := s.read.GetContext(ctx, &row, `SELECT enriched_at, tmdb_missing_at FROM people WHERE id = ?`, id.String())
	if err != nil {
		return enrichment.State{}, sqlrow.NotFound(err, "Entity not found: person")
	}
	return row.State()
}

// SaveMovieEnrichment writes a movie's enrichment in one transaction: the people (upserts), the
// movie's credits (replaced), its fields, its profile (which marks it enriched) and the search
// documents built from them. Being one transaction, a crash at any statement leaves none of it.
// A movie deleted meanwhile is left alone.
func (s *Store) SaveMovieEnrichment(ctx context.Context, e enrichment.MovieEnrichment) error {
	err := s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
		var one int
		err := tx.GetContext(ctx, &one, `SELECT 1 FROM movies WHERE id = ?`, e.MovieID.String())
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		// The people and credits go positionally: NamedExec parses its query at every call
		// (4.5 µs), which a movie's hundred credits would add to the writer's time.
		for _, p := range e.People {
			_, err := tx.ExecContext(ctx, `INSERT INTO people (id, external_id, name, known_for_department, profile_path)
				VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (id) DO UPDATE SET name = excluded.name,
					known_for_department = ifnull(excluded.known_for_department, people.known_for_department),
					profile_path = ifnull(excluded.profile_path, people.profile_path)`,
				p.ID.String(), p.ExternalID, p.Name, sqlrow.NullString(p.KnownForDepartment), sqlrow.NullString(p.ProfilePath))
			if err != nil {
				return fmt.Errorf("upsert person %s: %w", p.ExternalID, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM movie_credits WHERE movie_id = ?`, e.MovieID.String()); err != nil {
			return err
		}
		for _, c := range e.Credits {
			kind := "crew"
			if c.Cast {
				kind = "cast"
			}
			_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO movie_credits (movie_id, person_id, kind, role, department, billing_order)
				VALUES (?, ?, ?, ?, ?, ?)`, e.MovieID.String(), c.PersonID.String(), kind, c.Role, sqlrow.NullString(c.Department), c.Order)
			if err != nil {
				return fmt.Errorf("insert credit: %w", err)
			}
		}
		genres, _ := json.Marshal(e.Genres)
		_, err = tx.NamedExecContext(ctx, `UPDATE movies SET genres = :genres,
			runtime_minutes = ifnull(:runtime_minutes, runtime_minutes),
			original_language = ifnull(:original_language, original_language), overview = ifnull(:overview, overview),
			collection_name = ifnull(:collection_name, collection_name), director = ifnull(director, :director),
			tmdb_missing_at = NULL WHERE id = :id`, sqlrow.Movie{
			ID: e.MovieID, Genres: string(genres), RuntimeMinutes: sqlrow.NullOf(e.Runtime),
			OriginalLanguage: sqlrow.NullOf(e.OriginalLanguage), Overview: sqlrow.NullOf(e.Overview),
			CollectionName: sqlrow.NullOf(e.Collection), Director: sqlrow.NullOf(e.Director),
		})
		if err != nil {
			return fmt.Errorf("update movie: %w", err)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO movie_profiles (movie_id, profile, enriched_at) VALUES (?, ?, ?)
			ON CONFLICT (movie_id) DO UPDATE SET profile = excluded.profile, enriched_at = excluded.enriched_at`,
			e.MovieID.String(), string(e.Profile), sqlrow.FormatTime(e.EnrichedAt))
		if err != nil {
			return err
		}
		// The search documents are built from the rows just written (keywords come from the
		// profile); they commit with it.
		return indexMovieTx(ctx, tx, e.MovieID)
	})
	if err != nil {
		return fmt.Errorf("save movie enrichment: %w", err)
	}
	return nil
}

// MarkMovieMissing records that TMDb does not know the movie.
func (s *Store) MarkMovieMissing(ctx context.Context, id uuid.UUID, at time.Time) error {
	return s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE movies SET tmdb_missing_at = ? WHERE id = ?`, sqlrow.FormatTime(at), id.String())
		return err
	})
}

// SavePersonEnrichment writes a person's profile and enriched_at in one statement, and their
// search document.
func (s *Store) SavePersonEnrichment(ctx context.Context, id uuid.UUID, p enrichment.Person, at time.Time) error {
	err := s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.NamedExecContext(ctx, `UPDATE people SET name = :name, biography = :biography,
			birthday = :birthday, deathday = :deathday, place_of_birth = :place_of_birth, homepage = :homepage,
			imdb_id = :imdb_id, known_for_department = ifnull(:known_for_department, known_for_department),
			profile_path = ifnull(:profile_path, profile_path), tmdb_missing_at = NULL, enriched_at = :enriched_at
			WHERE id = :id`, sqlrow.Person{
			ID: id, Name: p.Name, Biography: sqlrow.NonEmpty(p.Biography), Birthday: sqlrow.NullOf(p.Birthday),
			Deathday: sqlrow.NullOf(p.Deathday), PlaceOfBirth: sqlrow.NullOf(p.PlaceOfBirth), Homepage: sqlrow.NullOf(p.Homepage),
			IMDbID: sqlrow.NullOf(p.IMDbID), KnownForDepartment: sqlrow.NonEmpty(p.KnownForDepartment), ProfilePath: sqlrow.NullOf(p.ProfilePath),
			EnrichedAt: sql.Null[string]{V: sqlrow.FormatTime(at), Valid: true},
		})
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, fmt.Sprintf(upsertPeopleDocs, `p.id = ?`), id.String())
		return err
	})
	if err != nil {
		return fmt.Errorf("save person enrichment: %w", err)
	}
	return nil
}

// MarkPersonMissing records that TMDb does not know the person.
func (s *Store) MarkPersonMissing(ctx context.Context, id uuid.UUID, at time.Time) error {
	return s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE people SET tmdb_missing_at = ? WHERE id = ?`, sqlrow.FormatTime(at), id.String())
		return err
	})
}

// RequestStaleEnrichment enqueues MovieEnrichmentRequested for at most limit movies with an
// external id whose profile is missing or older than freshFor, skipping those TMDb did not know
// within missingRetry and those requested within the last requestedWithin, and stamps them,
// in one transaction. It returns how many it requested.
func (s *Store) RequestStaleEnrichment(ctx context.Context, now time.Time, freshFor, missingRetry, requestedWithin time.Duration, limit int) (int, error) {
	n := 0
	err := s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
		var stale []struct {
			ID         uuid.UUID `db:"id"`
			ExternalID string    `db:"external_metadata_id"`
		}
		err := tx.SelectContext(ctx, &stale, `SELECT m.id, m.external_metadata_id FROM movies m
			LEFT JOIN movie_profiles p ON p.movie_id = m.id
			WHERE m.external_metadata_id IS NOT NULL
				AND (p.enriched_at IS NULL OR p.enriched_at < ?1)
				AND (m.tmdb_missing_at IS NULL OR m.tmdb_missing_at < ?2)
				AND (m.enrichment_requested_at IS NULL OR m.enrichment_requested_at < ?3)
			ORDER BY p.enriched_at IS NOT NULL, p.enriched_at, m.id LIMIT CAST(?4 AS INTEGER)`,
			sqlrow.FormatTime(now.Add(-freshFor)), sqlrow.FormatTime(now.Add(-missingRetry)), sqlrow.FormatTime(now.Add(-requestedWithin)), limit)
		if err != nil || len(stale) == 0 {
			return err
		}
		events := make([]domain.Event, len(stale))
		for i, m := range stale {
			if _, err := tx.ExecContext(ctx, `UPDATE movies SET enrichment_requested_at = ? WHERE id = ?`,
				sqlrow.FormatTime(now), m.ID.String()); err != nil {
				return err
			}
			events[i] = domain.MovieEnrichmentRequested{MovieID: m.ID, ExternalMetadataID: m.ExternalID}
		}
		n = len(events)
		return s.enqueue(ctx, tx, events...)
	})
	if err != nil {
		return 0, fmt.Errorf("request stale enrichment: %w", err)
	}
	return n, nil
}

// RequestMovieEnrichment enqueues MovieEnrichmentRequested for a movie and stamps its
// enrichment_requested_at, in one transaction: the staleness job then leaves it alone for a day.
func (s *Store) RequestMovieEnrichment(ctx context.Context, id uuid.UUID, externalID string) error {
	err := s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE movies SET enrichment_requested_at = ? WHERE id = ?`,
			sqlrow.FormatTime(s.now()), id.String()); err != nil {
			return err
		}
		return s.enqueue(ctx, tx, domain.MovieEnrichmentRequested{MovieID: id, ExternalMetadataID: externalID})
	})
	if err != nil {
		return fmt.Errorf("request movie enrichment: %w", err)
	}
	return nil
}

// RequestPersonEnrichment enqueues PersonEnrichmentRequested for a person never requested and
// stamps enrichment_requested_at, in one transaction, and reports whether it did. The stamp is
// the condition of the update, so two concurrent first reads request once.
func (s *Store) RequestPersonEnrichment(ctx context.Context, id uuid.UUID, externalID string) (bool, error) {
	requested := false
	err := s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE people SET enrichment_requested_at = ?
			WHERE id = ? AND enrichment_requested_at IS NULL AND enriched_at IS NULL`, sqlrow.FormatTime(s.now()), id.String())
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		requested = true
		return s.enqueue(ctx, tx, domain.PersonEnrichmentRequested{PersonID: id, ExternalPersonID: externalID})
	})
	if err != nil {
		return false, fmt.Errorf("request person enrichment: %w", err)
	}
	return requested, nil
}

// RequestStalePersonEnrichment asks again for at most limit people whose enrichment was
// requested before requestedWithin and never happened (TMDb not reached, the event
// dead-lettered), skipping those TMDb did not know within missingRetry, and stamps them, in one
// transaction. People nobody asked for are never requested: a movie's cast is enriched when a
// reader opens a person's page, not all at once. It returns how many it requested.
func (s *Store) RequestStalePersonEnrichment(ctx context.Context, now time.Time, missingRetry, requestedWithin time.Duration, limit int) (int, error) {
	n := 0
	err := s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
		var stale []struct {
			ID         uuid.UUID `db:"id"`
			ExternalID string    `db:"external_id"`
		}
		err := tx.SelectContext(ctx, &stale, `SELECT id, external_id FROM people
			WHERE enrichment_requested_at IS NOT NULL AND enriched_at IS NULL AND enrichment_requested_at < ?1
				AND (tmdb_missing_at IS NULL OR tmdb_missing_at < ?2)
			ORDER BY enrichment_requested_at, id LIMIT CAST(?3 AS INTEGER)`,
			sqlrow.FormatTime(now.Add(-requestedWithin)), sqlrow.FormatTime(now.Add(-missingRetry)), limit)
		if err != nil || len(stale) == 0 {
			return err
		}
		events := make([]domain.Event, len(stale))
		for i, p := range stale {
			if _, err := tx.ExecContext(ctx, `UPDATE people SET enrichment_requested_at = ? WHERE id = ?`,
				sqlrow.FormatTime(now), p.ID.String()); err != nil {
				return err
			}
			events[i] = domain.PersonEnrichmentRequested{PersonID: p.ID, ExternalPersonID: p.ExternalID}
		}
		n = len(events)
		return s.enqueue(ctx, tx, events...)
	})
	if err != nil {
		return 0, fmt.Errorf("request stale person enrichment: %w", err)
	}
	return n, nil
}
