package main

import (
	"context"

	"github.com/riverqueue/river/riverdriver"
)

// store is a fresh database with River's tables migrated in, opened for one scenario, over
// either driver: the transactions the scenarios commit jobs in, and the write path's own
// review table.
type store[TTx any] struct {
	driver   riverdriver.Driver[TTx]
	begin    func(context.Context) (TTx, error)
	commit   func(context.Context, TTx) error
	rollback func(context.Context, TTx)
	// createReviews creates the write path's review table; insertReview inserts one row of it in tx.
	createReviews func(context.Context) error
	insertReview  func(ctx context.Context, tx TTx, user, movie, rating int, body string) error
	close         func()
}

// backend is one database River runs on in this benchmark: how to open a fresh store, and how
// many producers offer commit→work's 1,000 jobs/s, as cmd/bench's matching scenario has.
type backend[TTx any] struct {
	open      func(ctx context.Context, name string) (*store[TTx], error)
	producers int
}
