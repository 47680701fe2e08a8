package maintenance

import (
	"cmp"
	"context"
	"fmt"
)

// ManualMovieKeyBatchDefault is how many movies one run of the keyer's store call handles.
const ManualMovieKeyBatchDefault = 200

// ManualMovieKeys keys up to limit movies typed in by hand before manual keys, merging the twins
// of older ones into them (*sqlstore.Store).
type ManualMovieKeys interface {
	KeyManualMovies(ctx context.Context, limit int) (keyed, merged int, done bool, err error)
}

// ManualMovieKeyer gives the manual movies of a database older than manual keys (migration
// 0290) theirs, and merges each film stored twice — by concurrent writers on PostgreSQL before
// the unique key, or typed with other case or spacing — into its first movie (issue 33). Once
// every movie has a key it asks nothing more of the database in this process.
type ManualMovieKeyer struct {
	job
	store ManualMovieKeys
	batch int
	done  bool
}

// NewManualMovieKeyer builds the job; batch bounds one store call (default
// ManualMovieKeyBatchDefault).
func NewManualMovieKeyer(store ManualMovieKeys, batch int, cfg JobConfig) *ManualMovieKeyer {
	return &ManualMovieKeyer{job: newJob("manual-movie-keys", cfg), store: store, batch: cmp.Or(batch, ManualMovieKeyBatchDefault)}
}

// RunOnce keys batches until none is left, or until a batch changes nothing (its movies' merges
// failed: they are reported, and tried again at the next run).
func (k *ManualMovieKeyer) RunOnce(ctx context.Context) error {
	var keyed, merged int64
	defer func() {
		k.report(ctx, "manual movies keyed", keyed)
		k.report(ctx, "manual movies merged into their twins", merged)
	}()
	for !k.done {
		var n, m int
		var done bool
		err := k.query(ctx, func(ctx context.Context) (err error) {
			n, m, done, err = k.store.KeyManualMovies(ctx, k.batch)
			return err
		})
		keyed, merged = keyed+int64(n), merged+int64(m)
		if err != nil {
			return fmt.Errorf("key manual movies: %w", err)
		}
		if n+m == 0 && !done {
			return fmt.Errorf("key manual movies: a batch of %d changed nothing", k.batch)
		}
		k.done = done
	}
	return nil
}
