package main

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
)

// drainBatch is how many jobs one InsertManyTx transaction inserts into the backlog.
const drainBatch = 1000

// drain inserts a backlog of n jobs (the three kinds in turn) before the client starts, then
// starts it and times until every job is completed: jobs/s.
func drain[TTx any](ctx context.Context, b backend[TTx], n int) (float64, error) {
	db, err := b.open(ctx, "drain")
	if err != nil {
		return 0, err
	}
	defer db.close()
	c, _, err := newClient(db.driver)
	if err != nil {
		return 0, err
	}
	for i := 0; i < n; i += drainBatch {
		params := make([]river.InsertManyParams, 0, drainBatch)
		for j := i; j < min(n, i+drainBatch); j++ {
			params = append(params, river.InsertManyParams{Args: jobArgs(j)})
		}
		tx, err := db.begin(ctx)
		if err != nil {
			return 0, err
		}
		if _, err := c.InsertManyTx(ctx, tx, params); err != nil {
			db.rollback(ctx, tx)
			return 0, fmt.Errorf("insert backlog: %w", err)
		}
		if err := db.commit(ctx, tx); err != nil {
			return 0, err
		}
	}
	// The channel holds every completion, so River never drops one for a slow reader.
	completed, cancel := c.SubscribeConfig(&river.SubscribeConfig{Kinds: []river.EventKind{river.EventKindJobCompleted}, ChanSize: n})
	defer cancel()
	begin := time.Now()
	if err := c.Start(ctx); err != nil {
		return 0, err
	}
	defer c.Stop(context.WithoutCancel(ctx))
	deadline := time.After(5 * time.Minute)
	for done := 0; done < n; done++ {
		select {
		case <-completed:
		case <-deadline:
			return 0, fmt.Errorf("drain: %d of %d jobs completed after 5 minutes", done, n)
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	return float64(n) / time.Since(begin).Seconds(), nil
}
