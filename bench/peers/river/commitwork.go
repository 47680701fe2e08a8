package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// commitToWork offers n jobs at rate per second from producers goroutines, one job per
// transaction, to a started client on a fresh database, and returns each job's time from its
// commit returning to its Work starting (as moviesdiary's bench measures commit→handler). One
// second's jobs go first at the same pace, uncounted, to warm the pools, as moviesdiary's do.
func commitToWork[TTx any](ctx context.Context, b backend[TTx], name string, rate, n, producers int) ([]time.Duration, error) {
	db, err := b.open(ctx, name)
	if err != nil {
		return nil, err
	}
	defer db.close()
	c, started, err := newClient(db.driver)
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	defer c.Stop(context.WithoutCancel(ctx))

	warm := max(1, rate)
	n += warm
	committed := make([]struct {
		id int64
		at time.Time
	}, n)
	interval := time.Second / time.Duration(rate)
	begin := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, producers)
	for range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				if w := time.Until(begin.Add(time.Duration(i) * interval)); w > 0 {
					time.Sleep(w) // paces the offered load
				}
				tx, err := db.begin(ctx)
				if err != nil {
					errs <- err
					return
				}
				res, err := c.InsertTx(ctx, tx, jobArgs(i), nil)
				if err != nil {
					db.rollback(ctx, tx)
					errs <- fmt.Errorf("insert: %w", err)
					return
				}
				if err := db.commit(ctx, tx); err != nil {
					errs <- err
					return
				}
				committed[i].id, committed[i].at = res.Job.ID, time.Now()
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	deadline := time.Now().Add(2 * time.Minute)
	for started.count() < n {
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s: %d of %d jobs worked after 2 minutes", name, started.count(), n)
		}
		time.Sleep(time.Millisecond) // polls an in-memory count, not the database
	}
	lat := make([]time.Duration, 0, n-warm)
	for _, cm := range committed[warm:] {
		s, ok := started.get(cm.id)
		if !ok {
			return nil, fmt.Errorf("%s: job %d never reached Work", name, cm.id)
		}
		// Work can start a moment before the producer reads the clock after Commit.
		lat = append(lat, max(0, s.Sub(cm.at)))
	}
	return lat, nil
}
