package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/poster"
)

// SetPoster points the movie at key with PosterSynced and ImageStored{key} in one transaction,
// unless the movie is gone or already points at key or its conversion: the check and the write
// share the transaction (the movie read FOR UPDATE where the engine locks rows), so of two syncs
// racing for one movie on any hosts only one emits the events.
func (s *Store) SetPoster(ctx context.Context, movieID uuid.UUID, key string) (poster.Outcome, error) {
	var out poster.Outcome
	err := s.write(ctx, func(tx *Tx) error {
		var current *string
		err := tx.GetContext(ctx, &current, `SELECT poster_path FROM movies WHERE id = ?`+s.forUpdate(), movieID.String())
		switch {
		case errors.Is(err, sql.ErrNoRows):
			out = poster.MovieGone
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
		if _, err := tx.ExecContext(ctx, `UPDATE movies SET poster_path = ? WHERE id = ?`, key, movieID.String()); err != nil {
			return err
		}
		out = poster.Set
		return s.enqueue(ctx, tx, domain.PosterSynced{MovieID: movieID}, domain.ImageStored{Key: key})
	})
	if err != nil {
		return 0, fmt.Errorf("set poster: %w", err)
	}
	return out, nil
}

// SwapImageKey points every movie whose poster or backdrop is the image old at new, every person
// whose photo it is, and every user whose avatar or banner it is, and returns how many it
// changed; none is not an error. (People's profile_path are TMDb paths, not stored keys.) Each
// user it changes gets a UserUpdated in the same transaction, so federation republishes the
// actor with the converted image's URL.
func (s *Store) SwapImageKey(ctx context.Context, old, new string) (int64, error) {
	var n int64
	err := s.write(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE movies SET poster_path = ? WHERE poster_path = ?`, new, old)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		for _, q := range []string{`UPDATE movies SET backdrop_key = ? WHERE backdrop_key = ?`,
			`UPDATE people SET photo_key = ? WHERE photo_key = ?`} {
			res, err := tx.ExecContext(ctx, q, new, old)
			if err != nil {
				return err
			}
			m, _ := res.RowsAffected()
			n += m
		}
		users, err := swapUserImageKey(ctx, tx, old, new)
		if err != nil {
			return err
		}
		n += int64(len(users))
		events := make([]domain.Event, 0, len(users))
		for _, id := range users {
			events = append(events, domain.UserUpdated{UserID: id})
		}
		return s.enqueue(ctx, tx, events...)
	})
	if err != nil {
		return 0, fmt.Errorf("swap image key: %w", err)
	}
	return n, nil
}

// ImageKeyInUse reports whether a movie's poster or backdrop, a person's photo or a user's
// avatar or banner is the image key.
func (s *Store) ImageKeyInUse(ctx context.Context, key string) (bool, error) {
	var used bool
	err := s.read.GetContext(ctx, &used, `SELECT EXISTS (SELECT 1 FROM movies WHERE poster_path = ? OR backdrop_key = ?)
		OR EXISTS (SELECT 1 FROM people WHERE photo_key = ?)
		OR EXISTS (SELECT 1 FROM users WHERE avatar_key = ? OR banner_key = ?)`, key, key, key, key, key)
	if err != nil {
		return false, fmt.Errorf("image key in use: %w", err)
	}
	return used, nil
}
