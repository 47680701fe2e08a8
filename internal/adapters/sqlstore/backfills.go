package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// imageBackfill names the image backfill's row in backfills.
const imageBackfill = "image-thumbnails"

// RequestImageBackfill re-enqueues ImageStored for up to limit stored images — movie posters,
// user avatars and banners whose kind has thumbnails (domain.ThumbWidths) — after the
// backfill's cursor in key order, and moves the cursor, in one transaction; the worker's
// handlers then make what an older database's images lack (their thumbnails; a conversion that
// never ran). It reports how many it requested and whether the backfill is done; once done it
// requests nothing, ever again. The backfill's row is locked for the transaction where the
// engine locks rows, so two workers cannot request the same batch.
func (s *Store) RequestImageBackfill(ctx context.Context, limit int) (n int, done bool, err error) {
	return s.backfill(ctx, imageBackfill, `SELECT k FROM (
			SELECT poster_path AS k FROM movies WHERE poster_path IS NOT NULL
			UNION SELECT avatar_key FROM users WHERE avatar_key IS NOT NULL
			UNION SELECT banner_key FROM users WHERE banner_key IS NOT NULL) images
		WHERE k > ? ORDER BY k LIMIT ?`, limit, func(k string) domain.Event {
		if len(domain.ThumbWidths(k)) == 0 {
			return nil
		}
		return domain.ImageStored{Key: k}
	})
}

// movieImagesBackfill names the walk of RequestMovieImagesBackfill in backfills.
const movieImagesBackfill = "movie-images"

// RequestMovieImagesBackfill enqueues MovieImagesRequested for up to limit more enriched
// movies (those with a profile), after the cursor, in one transaction: movies enriched before
// backdrops and cast photos were stored get theirs once. done once the walk has seen them all.
func (s *Store) RequestMovieImagesBackfill(ctx context.Context, limit int) (n int, done bool, err error) {
	return s.backfill(ctx, movieImagesBackfill, `SELECT movie_id FROM movie_profiles WHERE movie_id > ? ORDER BY movie_id LIMIT ?`,
		limit, func(k string) domain.Event {
			id, err := uuid.Parse(k)
			if err != nil {
				return nil
			}
			return domain.MovieImagesRequested{MovieID: id}
		})
}

// backfill moves the walk name over the keys query selects after its cursor (query takes the
// cursor and limit), enqueueing the event of each key (nil: none), in one transaction; done once
// a batch comes back short, and from then on the walk never runs again.
func (s *Store) backfill(ctx context.Context, name, query string, limit int, event func(key string) domain.Event) (n int, done bool, err error) {
	err = s.write(ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO backfills (name) VALUES (?) ON CONFLICT (name) DO NOTHING`, name); err != nil {
			return err
		}
		var state struct {
			After  string          `db:"after_key"`
			DoneAt sql.Null[int64] `db:"done_at"`
		}
		if err := tx.GetContext(ctx, &state, `SELECT after_key, done_at FROM backfills WHERE name = ?`+s.forUpdate(), name); err != nil {
			return err
		}
		if done = state.DoneAt.Valid; done {
			return nil
		}
		var keys []string
		if err := tx.SelectContext(ctx, &keys, query, state.After, limit); err != nil {
			return err
		}
		var events []domain.Event
		for _, k := range keys {
			if e := event(k); e != nil {
				events = append(events, e)
			}
		}
		n, done = len(events), len(keys) < limit
		after := state.After
		if len(keys) > 0 {
			after = keys[len(keys)-1]
		}
		var doneAt sql.Null[int64]
		if done {
			doneAt = sql.Null[int64]{V: s.now().UnixMilli(), Valid: true}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE backfills SET after_key = ?, done_at = ? WHERE name = ?`,
			after, doneAt, name); err != nil {
			return err
		}
		return s.enqueue(ctx, tx, events...)
	})
	if err != nil {
		return 0, false, fmt.Errorf("request backfill %s: %w", name, err)
	}
	return n, done, nil
}
