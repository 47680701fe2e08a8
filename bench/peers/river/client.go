package main

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
)

// maxWorkers is River's concurrency, moviesdiary's EVENT_QUEUE_CONCURRENCY default.
const maxWorkers = 16

// The three job kinds mirror moviesdiary's three no-op handlers per event; each backlog job
// is one of them in turn.
type (
	reviewLogged struct{ Seq int }
	movieWatched struct{ Seq int }
	followAdded  struct{ Seq int }
)

func (reviewLogged) Kind() string { return "review_logged" }
func (movieWatched) Kind() string { return "movie_watched" }
func (followAdded) Kind() string  { return "follow_added" }

// jobArgs is the i-th job of a run, cycling through the three kinds.
func jobArgs(i int) river.JobArgs {
	switch i % 3 {
	case 0:
		return reviewLogged{Seq: i}
	case 1:
		return movieWatched{Seq: i}
	}
	return followAdded{Seq: i}
}

// starts records when each job's Work began, by job id.
type starts struct {
	mu sync.Mutex
	at map[int64]time.Time
}

func (s *starts) record(id int64) {
	now := time.Now()
	s.mu.Lock()
	s.at[id] = now
	s.mu.Unlock()
}

func (s *starts) get(id int64) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.at[id]
	return t, ok
}

func (s *starts) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.at)
}

// noop is a worker that only records when it started.
func noop[T river.JobArgs](s *starts) river.Worker[T] {
	return river.WorkFunc(func(_ context.Context, job *river.Job[T]) error {
		s.record(job.ID)
		return nil
	})
}

// newClient is a River client on driver working the three kinds with maxWorkers workers and
// fetching as eagerly as River allows; it is not started.
func newClient[TTx any](driver riverdriver.Driver[TTx]) (*river.Client[TTx], *starts, error) {
	s := &starts{at: map[int64]time.Time{}}
	workers := river.NewWorkers()
	river.AddWorker(workers, noop[reviewLogged](s))
	river.AddWorker(workers, noop[movieWatched](s))
	river.AddWorker(workers, noop[followAdded](s))
	c, err := river.NewClient(driver, &river.Config{
		FetchCooldown:     river.FetchCooldownMin,
		FetchPollInterval: river.FetchPollIntervalMin,
		Logger:            slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Queues:            map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: maxWorkers}},
		Workers:           workers,
	})
	return c, s, err
}
