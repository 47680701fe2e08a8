package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// writers is how many goroutines the write path runs, like moviesdiary's commit path.
const writers = 16

// writeWarmUp is how long the write path commits before it counts.
const writeWarmUp = time.Second

// writePath runs writers goroutines for d after writeWarmUp, each committing transactions of one
// review row in the benchmark's own table and one InsertTx, on a fresh database (the client is
// not started, as moviesdiary's write path runs without a worker): commits/s.
func writePath[TTx any](ctx context.Context, b backend[TTx], d time.Duration) (float64, error) {
	db, err := b.open(ctx, "write")
	if err != nil {
		return 0, err
	}
	defer db.close()
	if err := db.createReviews(ctx); err != nil {
		return 0, err
	}
	c, _, err := newClient(db.driver)
	if err != nil {
		return 0, err
	}
	var commits atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	// The goroutines commit for writeWarmUp untimed first, as moviesdiary's commit path does:
	// the pool opens its connections meanwhile.
	counted := time.Now().Add(writeWarmUp)
	stop := counted.Add(d)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(stop); i++ {
				tx, err := db.begin(ctx)
				if err != nil {
					errs <- err
					return
				}
				if err := db.insertReview(ctx, tx, w, i, 1+i%10, "A quiet film that stays with you."); err != nil {
					db.rollback(ctx, tx)
					errs <- err
					return
				}
				if _, err := c.InsertTx(ctx, tx, jobArgs(i), nil); err != nil {
					db.rollback(ctx, tx)
					errs <- fmt.Errorf("insert job: %w", err)
					return
				}
				if err := db.commit(ctx, tx); err != nil {
					errs <- err
					return
				}
				commits.Add(1)
			}
		}()
	}
	warm := time.NewTimer(time.Until(counted))
	<-warm.C
	before, begin := commits.Load(), time.Now()
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return 0, err
	}
	return float64(commits.Load()-before) / time.Since(begin).Seconds(), nil
}
