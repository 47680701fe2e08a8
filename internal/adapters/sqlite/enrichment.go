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

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/enrichment"
)

// MovieEnrichmentState returns when the movie's profile was written and when TMDb last said it
// does not know the movie; KindNotFound when the movie is gone.
func (s *Store) MovieEnrichmentState(ctx context.Context, id uuid.UUID) (enrichment.State, error) {
	var enriched, missing sql.Null[string]
	err := s.read.QueryRowContext(ctx, `SELECT p.enriched_at, m.tmdb_missing_at FROM movies m
		LEFT JOIN movie_profiles p ON p.movie_id = m.id WHERE m.id = ?`, id.String()).Scan(&enriched, &missing)
	if err != nil {
		return enrichment.State{}, notFound(err, "Entity not found: movie")
	}
	return enrichmentState(enriched, missing)
}

// PersonEnrichmentState is MovieEnrichmentState for a person.
func (s *Store) PersonEnrichmentState(ctx context.Context, id uuid.UUID) (enrichment.State, error) {
	var enriched, missing sql.Null[string]
	err := s.read.QueryRowContext(ctx, `SELECT enriched_at, tmdb_missing_at FROM people WHERE id = ?`, id.String()).
		Scan(&enriched, &missing)
	if err != nil {
		return enrichment.State{}, notFound(err, "Entity not found: person")
	}
	return enrichmentState(enriched, missing)
}

func enrichmentState(enriched, missing sql.Null[string]) (enrichment.State, error) {
	var st enrichment.State
	for _, c := range []struct {
		v   sql.Null[string]
		dst **time.Time
	}{{enriched, &st.EnrichedAt}, {missing, &st.MissingAt}} {
		if !c.v.Valid {
			continue
		}
		t, err := parseTime(c.v.V)
		if err != nil {
			return st, err
		}
		*c.dst = &t
	}
	return st, nil
}

// SaveMovieEnrichment writes a movie's enrichment in one transaction: the people (upserts), the
// movie's credits (replaced), its fields, its profile (which marks it enriched) and the search
// documents built from them. Being one transaction, a crash at any statement leaves none of it.
// A movie deleted meanwhile is left alone.
func (s *Store) SaveMovieEnrichment(ctx context.Context, e enrichment.MovieEnrichment) error {
	err := s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM movies WHERE id = ?`, e.MovieID.String()).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, p := range e.People {
			_, err := tx.ExecContext(ctx, `INSERT INTO people (id, external_id, name, known_for_department, profile_path)
				VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (id) DO UPDATE SET name = excluded.name,
					known_for_department = ifnull(excluded.known_for_department, people.known_for_department),
					profile_path = ifnull(excluded.profile_path, people.profile_path)`,
				p.ID.String(), p.ExternalID, p.Name, nullString(p.KnownForDepartment), nullString(p.ProfilePath))
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
				VALUES (?, ?, ?, ?, ?, ?)`, e.MovieID.String(), c.PersonID.String(), kind, c.Role, nullString(c.Department), c.Order)
			if err != nil {
				return fmt.Errorf("insert credit: %w", err)
			}
		}
		genres, _ := json.Marshal(e.Genres)
		_, err = tx.ExecContext(ctx, `UPDATE movies SET genres = ?, runtime_minutes = ifnull(?, runtime_minutes),
			original_language = ifnull(?, original_language), overview = ifnull(?, overview),
			collection_name = ifnull(?, collection_name), director = ifnull(director, ?), tmdb_missing_at = NULL
			WHERE id = ?`, string(genres), e.Runtime, nullString(e.OriginalLanguage), nullString(e.Overview),
			nullString(e.Collection), nullString(e.Director), e.MovieID.String())
		if err != nil {
			return fmt.Errorf("update movie: %w", err)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO movie_profiles (movie_id, profile, enriched_at) VALUES (?, ?, ?)
			ON CONFLICT (movie_id) DO UPDATE SET profile = excluded.profile, enriched_at = excluded.enriched_at`,
			e.MovieID.String(), string(e.Profile), formatTime(e.EnrichedAt))
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
		_, err := tx.ExecContext(ctx, `UPDATE movies SET tmdb_missing_at = ? WHERE id = ?`, formatTime(at), id.String())
		return err
	})
}

// SavePersonEnrichment writes a person's profile and enriched_at in one statement, and their
// search document.
func (s *Store) SavePersonEnrichment(ctx context.Context, id uuid.UUID, p enrichment.Person, at time.Time) error {
	err := s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE people SET name = ?, biography = ?, birthday = ?, deathday = ?,
			place_of_birth = ?, homepage = ?, imdb_id = ?, known_for_department = ifnull(?, known_for_department),
			profile_path = ifnull(?, profile_path), tmdb_missing_at = NULL, enriched_at = ? WHERE id = ?`,
			p.Name, nullIfEmpty(p.Biography), nullString(p.Birthday), nullString(p.Deathday), nullString(p.PlaceOfBirth),
			nullString(p.Homepage), nullString(p.IMDbID), nullIfEmpty(p.KnownForDepartment), nullString(p.ProfilePath),
			formatTime(at), id.String())
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
		_, err := tx.ExecContext(ctx, `UPDATE people SET tmdb_missing_at = ? WHERE id = ?`, formatTime(at), id.String())
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
		rows, err := tx.QueryContext(ctx, `SELECT m.id, m.external_metadata_id FROM movies m
			LEFT JOIN movie_profiles p ON p.movie_id = m.id
			WHERE m.external_metadata_id IS NOT NULL
				AND (p.enriched_at IS NULL OR p.enriched_at < ?1)
				AND (m.tmdb_missing_at IS NULL OR m.tmdb_missing_at < ?2)
				AND (m.enrichment_requested_at IS NULL OR m.enrichment_requested_at < ?3)
			ORDER BY p.enriched_at IS NOT NULL, p.enriched_at, m.id LIMIT CAST(?4 AS INTEGER)`,
			formatTime(now.Add(-freshFor)), formatTime(now.Add(-missingRetry)), formatTime(now.Add(-requestedWithin)), limit)
		if err != nil {
			return err
		}
		events, err := scanAll(rows, func(rows *sql.Rows) (domain.Event, error) {
			var id, ext string
			if err := rows.Scan(&id, &ext); err != nil {
				return nil, err
			}
			mid, err := uuid.Parse(id)
			return domain.MovieEnrichmentRequested{MovieID: mid, ExternalMetadataID: ext}, err
		})
		if err != nil || len(events) == 0 {
			return err
		}
		for _, e := range events {
			ev := e.(domain.MovieEnrichmentRequested)
			if _, err := tx.ExecContext(ctx, `UPDATE movies SET enrichment_requested_at = ? WHERE id = ?`,
				formatTime(now), ev.MovieID.String()); err != nil {
				return err
			}
		}
		n = len(events)
		return s.enqueue(ctx, tx, events...)
	})
	if err != nil {
		return 0, fmt.Errorf("request stale enrichment: %w", err)
	}
	return n, nil
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
