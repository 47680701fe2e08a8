package sqlstore

import (
	"context"
	"fmt"

	"github.com/google/uuid"
)

// The search documents: one row per movie and per credited person holding the text, built from
// the current rows by the engine's statements (Dialect.SearchDocuments); the engine indexes them
// itself (SQLite's FTS5 tables, PostgreSQL's weighted tsvector) and answers the searches.

// indexPerson upserts person id's document inside tx (a person with no credit has none).
func (s *Store) indexPerson(ctx context.Context, tx *Tx, id uuid.UUID) error {
	_, people := s.d.SearchDocuments()
	_, err := tx.ExecContext(ctx, fmt.Sprintf(people, `p.id = ?`), id.String())
	return err
}

// deleteOrphanPeopleDocs removes the documents of people left without any credit.
const deleteOrphanPeopleDocs = `DELETE FROM search_people
	WHERE NOT EXISTS (SELECT 1 FROM movie_credits c WHERE c.person_id = search_people.person_id)`

// indexMovieTx upserts a movie's document and its people's, inside tx.
func (s *Store) indexMovie(ctx context.Context, tx *Tx, id uuid.UUID) error {
	movies, people := s.d.SearchDocuments()
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(movies, `m.id = ?`), id.String()); err != nil {
		return fmt.Errorf("index movie: %w", err)
	}
	_, err := tx.ExecContext(ctx, fmt.Sprintf(people, `p.id IN (SELECT person_id FROM movie_credits WHERE movie_id = ?)`), id.String())
	if err != nil {
		return fmt.Errorf("index people: %w", err)
	}
	return nil
}

// IndexMovie upserts a movie's search document and its people's. A movie that is gone has no
// document (its row cascaded away).
func (s *Store) IndexMovie(ctx context.Context, id uuid.UUID, onlyIfMissing bool) error {
	if onlyIfMissing {
		var indexed bool
		err := s.read.GetContext(ctx, &indexed, `SELECT EXISTS (SELECT 1 FROM search_movies WHERE movie_id = ?)`, id.String())
		if err != nil {
			return fmt.Errorf("index movie: %w", err)
		}
		if indexed {
			return nil
		}
	}
	return s.write(ctx, func(tx *Tx) error { return s.indexMovie(ctx, tx, id) })
}

// RemoveMovie deletes a movie's document and the documents of people left without credits.
func (s *Store) RemoveMovie(ctx context.Context, id uuid.UUID) error {
	return s.write(ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM search_movies WHERE movie_id = ?`, id.String()); err != nil {
			return fmt.Errorf("remove movie from search: %w", err)
		}
		if _, err := tx.ExecContext(ctx, deleteOrphanPeopleDocs); err != nil {
			return fmt.Errorf("remove orphan people from search: %w", err)
		}
		return nil
	})
}

// Reindex rebuilds every document from the current rows, a page of movies (then of people) per
// transaction, so the writer is never held for long (nor many rows locked) and requests interleave.
func (s *Store) Reindex(ctx context.Context, page int) error {
	movies, people := s.d.SearchDocuments()
	for _, t := range []struct{ table, upsert, col string }{
		{"movies", movies, "m.id"},
		{"people", people, "p.id"},
	} {
		after := ""
		for {
			var span struct {
				First *string `db:"first"`
				Last  *string `db:"last"`
			}
			err := s.read.GetContext(ctx, &span, `SELECT min(id) AS first, max(id) AS last FROM (SELECT id FROM `+t.table+`
				WHERE id > ? ORDER BY id LIMIT CAST(? AS INTEGER)) t`, after, page)
			if err != nil {
				return fmt.Errorf("reindex %s: %w", t.table, err)
			}
			if span.Last == nil {
				break
			}
			err = s.write(ctx, func(tx *Tx) error {
				_, err := tx.ExecContext(ctx, fmt.Sprintf(t.upsert, t.col+` BETWEEN ? AND ?`), *span.First, *span.Last)
				return err
			})
			if err != nil {
				return fmt.Errorf("reindex %s: %w", t.table, err)
			}
			after = *span.Last
		}
	}
	return s.write(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, deleteOrphanPeopleDocs)
		return err
	})
}
