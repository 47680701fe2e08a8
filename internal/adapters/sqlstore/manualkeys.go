package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
)

// KeyManualMovies gives up to limit movies typed in by hand and stored before manual keys
// (migration 0290), oldest first, their domain.ManualMovieKey, and merges each one whose key
// an older movie already has into that movie (MergeMovies: its reviews, watchlist entries and
// watch-queue items move, its id redirects). It reports how many it keyed and merged, and done
// when the batch was the last. A merge that fails is reported in err after the others ran; the
// movie stays unkeyed for the next run.
func (s *Store) KeyManualMovies(ctx context.Context, limit int) (keyed, merged int, done bool, err error) {
	var batch []struct {
		ID       uuid.UUID        `db:"id"`
		Title    string           `db:"title"`
		Year     sql.Null[int]    `db:"release_year"`
		Director sql.Null[string] `db:"director"`
	}
	if err := s.read.SelectContext(ctx, &batch, `SELECT id, title, release_year, director FROM movies
		WHERE manual_key IS NULL AND external_metadata_id IS NULL ORDER BY created_at, id LIMIT ?`, limit); err != nil {
		return 0, 0, false, fmt.Errorf("read unkeyed manual movies: %w", err)
	}
	type twin struct {
		from uuid.UUID
		key  string
	}
	var twins []twin
	err = s.writeAlone(ctx, func(tx *Tx) error {
		keyed, twins = 0, nil
		seen := map[string]bool{}
		for _, m := range batch {
			key := domain.ManualMovieKey(m.Title, m.Year.V, sqlrow.Ptr(m.Director))
			if seen[key] {
				twins = append(twins, twin{m.ID, key})
				continue
			}
			seen[key] = true
			res, err := tx.ExecContext(ctx, `UPDATE movies SET manual_key = ? WHERE id = ? AND manual_key IS NULL
				AND NOT EXISTS (SELECT 1 FROM movies o WHERE o.manual_key = ?)`, key, m.ID.String(), key)
			if err != nil {
				return fmt.Errorf("key manual movie %s: %w", m.ID, err)
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 1 {
				keyed++
				continue
			}
			twins = append(twins, twin{m.ID, key})
		}
		return nil
	})
	if err != nil {
		return 0, 0, false, err
	}
	var errs []error
	for _, t := range twins {
		var into uuid.UUID
		if err := s.read.GetContext(ctx, &into, `SELECT id FROM movies WHERE manual_key = ?`, t.key); errors.Is(err, sql.ErrNoRows) {
			continue // the keyed movie went meanwhile: the next run keys this one
		} else if err != nil {
			errs = append(errs, fmt.Errorf("find the twin of manual movie %s: %w", t.from, err))
			continue
		}
		if _, err := s.MergeMovies(ctx, t.from, into, s.now(), false); err != nil {
			errs = append(errs, err)
			continue
		}
		merged++
	}
	return keyed, merged, len(batch) < limit, errors.Join(errs...)
}
