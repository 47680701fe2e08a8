package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/poster"
)

// MovieImages returns a movie's backdrop and its cast's photos, each as TMDb names it and as
// stored, the cast in billing order (a person credited twice once); KindNotFound when the movie
// is gone.
func (s *Store) MovieImages(ctx context.Context, id uuid.UUID) (domain.MovieImages, error) {
	var m struct {
		Path sql.Null[string] `db:"backdrop_path"`
		Key  sql.Null[string] `db:"backdrop_key"`
	}
	err := s.read.GetContext(ctx, &m, `SELECT backdrop_path, backdrop_key FROM movies WHERE id = ?`, id.String())
	if err != nil {
		return domain.MovieImages{}, sqlrow.NotFound(err, "Entity not found: movie")
	}
	var cast []struct {
		ID   uuid.UUID        `db:"id"`
		Path sql.Null[string] `db:"profile_path"`
		Key  sql.Null[string] `db:"photo_key"`
	}
	// Grouped by the people's primary key, so their other columns may be selected.
	err = s.read.SelectContext(ctx, &cast, `SELECT p.id, p.profile_path, p.photo_key
		FROM movie_credits c JOIN people p ON p.id = c.person_id
		WHERE c.movie_id = ? AND c.kind = 'cast'
		GROUP BY p.id ORDER BY min(c.billing_order), p.id`, id.String())
	if err != nil {
		return domain.MovieImages{}, fmt.Errorf("movie images: %w", err)
	}
	out := domain.MovieImages{BackdropPath: m.Path.V, BackdropKey: sqlrow.Ptr(m.Key)}
	for _, c := range cast {
		out.Cast = append(out.Cast, domain.PersonImage{PersonID: c.ID, ProfilePath: c.Path.V, PhotoKey: sqlrow.Ptr(c.Key)})
	}
	return out, nil
}

// SetBackdrop points the movie at its backdrop's key with ImageStored{key} in one transaction,
// unless the movie is gone or already points at key or its conversion (as SetPoster).
func (s *Store) SetBackdrop(ctx context.Context, movieID uuid.UUID, key string) (poster.Outcome, error) {
	out, err := s.setImageKey(ctx, "movies", "backdrop_key", movieID, key)
	if err != nil {
		return 0, fmt.Errorf("set backdrop: %w", err)
	}
	return out, nil
}

// SetPersonPhoto points the person at their photo's key with ImageStored{key} in one
// transaction, unless the person is gone or already points at key or its conversion.
func (s *Store) SetPersonPhoto(ctx context.Context, personID uuid.UUID, key string) (poster.Outcome, error) {
	out, err := s.setImageKey(ctx, "people", "photo_key", personID, key)
	if err != nil {
		return 0, fmt.Errorf("set person photo: %w", err)
	}
	return out, nil
}

// setImageKey is SetBackdrop and SetPersonPhoto: the check and the write share the transaction
// (the row read FOR UPDATE where the engine locks rows), so of two handlers racing for one row
// only one emits ImageStored. table and column are constants of the callers.
func (s *Store) setImageKey(ctx context.Context, table, column string, id uuid.UUID, key string) (poster.Outcome, error) {
	var out poster.Outcome
	err := s.write(ctx, func(tx *Tx) error {
		var current *string
		err := tx.GetContext(ctx, &current, `SELECT `+column+` FROM `+table+` WHERE id = ?`+s.forUpdate(), id.String())
		switch {
		case errors.Is(err, sql.ErrNoRows):
			out = poster.Gone
			return nil
		case err != nil:
			return err
		case current != nil && *current == key:
			out = poster.AlreadySet
			return nil
		case current != nil && *current == domain.ConvertedKey(key):
			out = poster.AlreadyConverted
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE `+table+` SET `+column+` = ? WHERE id = ?`, key, id.String()); err != nil {
			return err
		}
		out = poster.Set
		return s.enqueue(ctx, tx, domain.ImageStored{Key: key})
	})
	return out, err
}
