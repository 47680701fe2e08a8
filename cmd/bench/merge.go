package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/domain"
)

// The merge scenario's shape.
const (
	// mergeReviewsDefault are the reviews of the manual movie each round merges into the film
	// (-merge-reviews), from mergeUsers users, half of whom also have it on their watchlist.
	mergeReviewsDefault = 1000
	mergeUsers          = 20
	// mergeRounds are the rounds, each a baseline window of mergeBaseline and a merge.
	mergeRounds   = 5
	mergeBaseline = 1500 * time.Millisecond
	// mergeWriters log reviews of other movies throughout, each as a user of its own, as the
	// server's write path does for as many clients.
	mergeWriters = 4
)

// write is one review write's interval.
type write struct{ start, end time.Time }

// mergeScenario measures what merging a movie with reviews reviews into the film costs the
// write path on SQLite: mergeWriters writers log reviews of other movies through the store
// (LogReview, as POST /reviews does) while a merge runs (MergeMovies, one transaction: the
// reviews, watchlist entries, redirects and their events, a ReviewUpdated per announced review),
// against the same writers with no merge in alternating windows. It reports the merge's time and
// the writes' latency in both.
func mergeScenario(ctx context.Context, dir string, reviews int, log *slog.Logger) ([]row, error) {
	store, err := sqlite.OpenMigrated(ctx, filepath.Join(dir, "merge.db"), log)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	user := func(name string) (domain.User, error) {
		return store.CreateUser(ctx, domain.User{ID: uuid.New(), Username: name, Email: name + "@example.test",
			PasswordHash: "x", Role: domain.RoleStandard, CreatedAt: time.Now().UTC()})
	}
	var users, writers []domain.User
	for i := range mergeUsers {
		u, err := user(fmt.Sprintf("merge%d", i))
		if err != nil {
			return nil, err
		}
		users = append(users, u)
	}
	for i := range mergeWriters {
		u, err := user(fmt.Sprintf("writer%d", i))
		if err != nil {
			return nil, err
		}
		writers = append(writers, u)
	}
	t0 := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	review := func(u uuid.UUID, rating, day int) domain.Review {
		at := t0.AddDate(0, 0, day%3000)
		now := time.Now().UTC()
		return domain.Review{ID: uuid.New(), UserID: u, Rating: rating, WatchedAt: at, CreatedAt: now, UpdatedAt: now}
	}
	film := func(n int) domain.Movie {
		ext := fmt.Sprintf("tmdb:%d", n)
		return domain.Movie{ExternalID: &ext, Title: fmt.Sprintf("Merge Film %d", n), ReleaseYear: 1950 + n%70, Genres: []string{"Drama"}}
	}

	// writeUntil runs the writers until stop closes and returns their writes.
	writeUntil := func(stop <-chan struct{}) ([]write, error) {
		var (
			mu   sync.Mutex
			all  []write
			wg   sync.WaitGroup
			errs = make(chan error, mergeWriters)
		)
		for w := range mergeWriters {
			wg.Go(func() {
				var mine []write
				defer func() { mu.Lock(); all = append(all, mine...); mu.Unlock() }()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					start := time.Now()
					if _, err := store.LogReview(ctx, review(writers[w].ID, 1+i%5, i), film(100_000+w*1000+i%200), nil); err != nil {
						errs <- err
						return
					}
					mine = append(mine, write{start, time.Now()})
				}
			})
		}
		wg.Wait()
		close(errs)
		return all, <-errs
	}
	latencies := func(ws []write, from, to time.Time) []time.Duration {
		var out []time.Duration
		for _, w := range ws {
			if w.end.After(from) && w.start.Before(to) {
				out = append(out, w.end.Sub(w.start))
			}
		}
		return out
	}

	var base, during []time.Duration
	var merges []time.Duration
	for n := range mergeRounds {
		// The round's two movies: the film, and the manual movie with its reviews and watchlist
		// entries (set up with no writer running).
		into, err := store.LogReview(ctx, review(users[0].ID, 5, 0), film(n+1), nil)
		if err != nil {
			return nil, err
		}
		year := 1900 + n
		m, err := domain.NewManualMovie(fmt.Sprintf("Merge Film %d", n+1), &year, nil)
		if err != nil {
			return nil, err
		}
		for i := range reviews {
			got, err := store.LogReview(ctx, review(users[i%len(users)].ID, 1+i%5, i/len(users)), m, nil)
			if err != nil {
				return nil, err
			}
			m = domain.Movie{ID: got.Movie.ID, Title: got.Movie.Title, ReleaseYear: got.Movie.ReleaseYear, Genres: []string{}}
		}
		for i := 0; i < len(users); i += 2 {
			if _, err := store.AddToWatchlist(ctx, users[i].ID, m, t0); err != nil {
				return nil, err
			}
		}

		// The baseline: the writers alone.
		stop := make(chan struct{})
		time.AfterFunc(mergeBaseline, func() { close(stop) })
		ws, err := writeUntil(stop)
		if err != nil {
			return nil, err
		}
		from := ws[0].start.Add(100 * time.Millisecond) // past the writers' start
		base = append(base, latencies(ws, from, from.Add(mergeBaseline-200*time.Millisecond))...)

		// The merge, with the writers running from before it to after it.
		stop = make(chan struct{})
		type result struct {
			ws  []write
			err error
		}
		done := make(chan result, 1)
		go func() { ws, err := writeUntil(stop); done <- result{ws, err} }()
		time.Sleep(200 * time.Millisecond) // the writers are running
		start := time.Now()
		res, err := store.MergeMovies(ctx, m.ID, into.Movie.ID, time.Now().UTC(), false)
		end := time.Now()
		time.Sleep(200 * time.Millisecond)
		close(stop)
		r := <-done
		if err != nil {
			return nil, err
		}
		if r.err != nil {
			return nil, r.err
		}
		if res.Reviews != reviews {
			return nil, fmt.Errorf("merged %d reviews, want %d", res.Reviews, reviews)
		}
		merges = append(merges, end.Sub(start))
		during = append(during, latencies(r.ws, start, end)...)
	}
	slices.Sort(merges)
	label := fmt.Sprintf("merge: %d-review movie on SQLite, %d writers", reviews, mergeWriters)
	return []row{
		{label + ", merge time", fmt.Sprintf("median %s, max %s (%d merges)", round(merges[len(merges)/2]), round(merges[len(merges)-1]), len(merges))},
		{label + ", writes without a merge", writeLatencies(base)},
		{label + ", writes during the merge", writeLatencies(during)},
	}, nil
}

// writeLatencies formats p50/p99/max of write latencies.
func writeLatencies(samples []time.Duration) string {
	if len(samples) == 0 {
		return "no writes"
	}
	slices.Sort(samples)
	at := func(q float64) time.Duration { return samples[min(len(samples)-1, int(q*float64(len(samples))))] }
	return fmt.Sprintf("p50 %s  p99 %s  max %s  (%d writes)", round(at(0.50)), round(at(0.99)), round(samples[len(samples)-1]), len(samples))
}
