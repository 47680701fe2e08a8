package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

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
// movie's credits (replaced), its fields, its profile (which marks it enriched), the search
// documents built from them and MovieImagesRequested. A movie deleted meanwhile is left alone.
//
// Where other transactions write beside this one, the movie is locked first (FOR NO KEY UPDATE):
// two enrichments of one movie take turns (the second replaces the first's credits whole), and
// a delete of the movie waits for this one or went first, when nothing is written. The people
// are upserted in id order, so two movies sharing cast lock them in the same order and never
// deadlock.
func (s *Store) SaveMovieEnrichment(ctx context.Context, e enrichment.MovieEnrichment) error {
	err := s.write(ctx, func(tx *Tx) error {
		var one int
		err := tx.GetContext(ctx, &one, `SELECT 1 FROM movies WHERE id = ?`+s.locking("FOR NO KEY UPDATE"), e.MovieID.String())
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		people := slices.SortedFunc(slices.Values(e.People), func(a, b enrichment.PersonRow) int {
			return cmp.Compare(a.ID.String(), b.ID.String())
		})
		for _, p := range people {
			_, err := tx.ExecContext(ctx, `INSERT INTO people (id, external_id, name, known_for_department, profile_path)
				VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (id) DO UPDATE SET name = excluded.name,
					known_for_department = COALESCE(excluded.known_for_department, people.known_for_department),
					profile_path = COALESCE(excluded.profile_path, people.profile_path)`,
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
			_, err := tx.ExecContext(ctx, `INSERT INTO movie_credits (movie_id, person_id, kind, role, department, billing_order)
				VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
				e.MovieID.String(), c.PersonID.String(), kind, c.Role, sqlrow.NullString(c.Department), c.Order)
			if err != nil {
				return fmt.Errorf("insert credit: %w", err)
			}
		}
		genres, _ := json.Marshal(e.Genres)
		_, err = tx.ExecContext(ctx, `UPDATE movies SET genres = ?,
			runtime_minutes = COALESCE(?, runtime_minutes),
			original_language = COALESCE(?, original_language), overview = COALESCE(?, overview),
			collection_name = COALESCE(?, collection_name), director = COALESCE(director, ?),
			backdrop_path = COALESCE(?, backdrop_path), tmdb_missing_at = NULL WHERE id = ?`,
			string(genres), sqlrow.NullOf(e.Runtime), sqlrow.NullOf(e.OriginalLanguage), sqlrow.NullOf(e.Overview),
			sqlrow.NullOf(e.Collection), sqlrow.NullOf(e.Director), sqlrow.NullOf(e.BackdropPath), e.MovieID.String())
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
		if err := s.indexMovie(ctx, tx, e.MovieID); err != nil {
			return err
		}
		// The backdrop and the cast's photos are downloaded after the rows naming them commit.
		return s.enqueue(ctx, tx, domain.MovieImagesRequested{MovieID: e.MovieID})
	})
	if err != nil {
		return fmt.Errorf("save movie enrichment: %w", err)
	}
	return nil
}

// MarkMovieMissing records that TMDb does not know the movie.
func (s *Store) MarkMovieMissing(ctx context.Context, id uuid.UUID, at time.Time) error {
	return s.write(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE movies SET tmdb_missing_at = ? WHERE id = ?`, sqlrow.FormatTime(at), id.String())
		return err
	})
}

// SavePersonEnrichment writes a person's profile and enriched_at in one statement, and their
// search document, in one transaction.
func (s *Store) SavePersonEnrichment(ctx context.Context, id uuid.UUID, p enrichment.Person, at time.Time) error {
	err := s.write(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE people SET name = ?, biography = ?,
			birthday = ?, deathday = ?, place_of_birth = ?, homepage = ?, imdb_id = ?,
			known_for_department = COALESCE(?, known_for_department),
			profile_path = COALESCE(?, profile_path), tmdb_missing_at = NULL, enriched_at = ?
			WHERE id = ?`,
			p.Name, sqlrow.NonEmpty(p.Biography), sqlrow.NullOf(p.Birthday), sqlrow.NullOf(p.Deathday), sqlrow.NullOf(p.PlaceOfBirth),
			sqlrow.NullOf(p.Homepage), sqlrow.NullOf(p.IMDbID), sqlrow.NonEmpty(p.KnownForDepartment), sqlrow.NullOf(p.ProfilePath),
			sqlrow.FormatTime(at), id.String())
		if err != nil {
			return err
		}
		err = s.indexPerson(ctx, tx, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("save person enrichment: %w", err)
	}
	return nil
}

// MarkPersonMissing records that TMDb does not know the person.
func (s *Store) MarkPersonMissing(ctx context.Context, id uuid.UUID, at time.Time) error {
	return s.write(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE people SET tmdb_missing_at = ? WHERE id = ?`, sqlrow.FormatTime(at), id.String())
		return err
	})
}

// RequestStaleEnrichment enqueues MovieEnrichmentRequested for at most limit movies with an
// external id whose profile is missing or older than freshFor, skipping those TMDb did not know
// within missingRetry and those requested within the last requestedWithin, and stamps them,
// in one transaction. It returns how many it requested. The movies are selected FOR UPDATE SKIP
// LOCKED where workers run concurrently: two workers running the job at once request disjoint movies.
func (s *Store) RequestStaleEnrichment(ctx context.Context, now time.Time, freshFor, missingRetry, requestedWithin time.Duration, limit int) (int, error) {
	n := 0
	err := s.write(ctx, func(tx *Tx) error {
		var stale []struct {
			ID         uuid.UUID `db:"id"`
			ExternalID string    `db:"external_metadata_id"`
		}
		err := tx.SelectContext(ctx, &stale, `SELECT m.id, m.external_metadata_id FROM movies m
			LEFT JOIN movie_profiles p ON p.movie_id = m.id
			WHERE m.external_metadata_id IS NOT NULL
				AND (p.enriched_at IS NULL OR p.enriched_at < ?)
				AND (m.tmdb_missing_at IS NULL OR m.tmdb_missing_at < ?)
				AND (m.enrichment_requested_at IS NULL OR m.enrichment_requested_at < ?)
			ORDER BY p.enriched_at IS NOT NULL, p.enriched_at, m.id LIMIT CAST(? AS INTEGER)`+
			s.locking("FOR UPDATE OF m SKIP LOCKED"),
			sqlrow.FormatTime(now.Add(-freshFor)), sqlrow.FormatTime(now.Add(-missingRetry)), sqlrow.FormatTime(now.Add(-requestedWithin)), limit)
		if err != nil || len(stale) == 0 {
			return err
		}
		events := make([]domain.Event, len(stale))
		ids := make([]string, len(stale))
		for i, m := range stale {
			ids[i] = m.ID.String()
			events[i] = domain.MovieEnrichmentRequested{MovieID: m.ID, ExternalMetadataID: m.ExternalID}
		}
		if _, err := tx.execIn(ctx, `UPDATE movies SET enrichment_requested_at = ? WHERE id IN (?)`,
			sqlrow.FormatTime(now), ids); err != nil {
			return err
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
	err := s.write(ctx, func(tx *Tx) error {
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
// the condition of the update: of two concurrent first reads, the second's update waits for the
// first's row lock, then finds the stamp and changes nothing, so the person is requested once.
func (s *Store) RequestPersonEnrichment(ctx context.Context, id uuid.UUID, externalID string) (bool, error) {
	requested := false
	err := s.write(ctx, func(tx *Tx) error {
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
// transaction (FOR UPDATE SKIP LOCKED, as RequestStaleEnrichment). It returns how many it
// requested.
func (s *Store) RequestStalePersonEnrichment(ctx context.Context, now time.Time, missingRetry, requestedWithin time.Duration, limit int) (int, error) {
	n := 0
	err := s.write(ctx, func(tx *Tx) error {
		var stale []struct {
			ID         uuid.UUID `db:"id"`
			ExternalID string    `db:"external_id"`
		}
		err := tx.SelectContext(ctx, &stale, `SELECT id, external_id FROM people
			WHERE enrichment_requested_at IS NOT NULL AND enriched_at IS NULL AND enrichment_requested_at < ?
				AND (tmdb_missing_at IS NULL OR tmdb_missing_at < ?)
			ORDER BY enrichment_requested_at, id LIMIT CAST(? AS INTEGER)`+s.locking("FOR UPDATE SKIP LOCKED"),
			sqlrow.FormatTime(now.Add(-requestedWithin)), sqlrow.FormatTime(now.Add(-missingRetry)), limit)
		if err != nil || len(stale) == 0 {
			return err
		}
		events := make([]domain.Event, len(stale))
		ids := make([]string, len(stale))
		for i, p := range stale {
			ids[i] = p.ID.String()
			events[i] = domain.PersonEnrichmentRequested{PersonID: p.ID, ExternalPersonID: p.ExternalID}
		}
		if _, err := tx.execIn(ctx, `UPDATE people SET enrichment_requested_at = ? WHERE id IN (?)`,
			sqlrow.FormatTime(now), ids); err != nil {
			return err
		}
		n = len(events)
		return s.enqueue(ctx, tx, events...)
	})
	if err != nil {
		return 0, fmt.Errorf("request stale person enrichment: %w", err)
	}
	return n, nil
}
