package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"moviesdiary/internal/domain"
)

// BenchMerge measures a merge of a manual movie with reviews reviews (from 20 users, half of
// them with the film on the watchlist) into the film, the figure: the time of one
// MergeMovies. Meanwhile one writer logs reviews of another movie, and the p99 and the longest of
// those writes are reported (write-p99-ms, write-max-ms): what the merge costs the write path.
// Setting up each merge (the reviews) is outside the timer.
func BenchMerge(b *testing.B, s Merge, reviews int) {
	ctx := context.Background()
	users := make([]domain.User, 20)
	for i := range users {
		u, err := s.CreateUser(ctx, newUser(fmt.Sprintf("bench%d", i)))
		if err != nil {
			b.Fatal(err)
		}
		users[i] = u
	}
	other := tmdbMovie(999)
	var latencies []time.Duration
	for n := range b.N {
		b.StopTimer()
		film, err := s.LogReview(ctx, newReview(users[0].ID, 5, 0), tmdbMovie(n+1), nil)
		if err != nil {
			b.Fatal(err)
		}
		year := 1900 + n%100
		m, _ := domain.NewManualMovie(fmt.Sprintf("Bench Manual %d", n), &year, nil)
		for i := range reviews {
			got, err := s.LogReview(ctx, newReview(users[i%len(users)].ID, 1+i%5, i%300), m, nil)
			if err != nil {
				b.Fatal(err)
			}
			m = byID(got.Movie)
		}
		for i := 0; i < len(users); i += 2 {
			if _, err := s.AddToWatchlist(ctx, users[i].ID, m, t0); err != nil {
				b.Fatal(err)
			}
		}
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				start := time.Now()
				if _, err := s.LogReview(ctx, newReview(users[i%len(users)].ID, 3, i%300), other, nil); err != nil {
					b.Error(err)
					return
				}
				latencies = append(latencies, time.Since(start))
			}
		}()
		b.StartTimer()
		res, err := s.MergeMovies(ctx, m.ID, film.Movie.ID, t0, false)
		b.StopTimer()
		close(done)
		wg.Wait()
		if err != nil {
			b.Fatal(err)
		}
		if res.Reviews != reviews {
			b.Fatalf("merged %d reviews, want %d", res.Reviews, reviews)
		}
		b.StartTimer()
	}
	if len(latencies) > 0 {
		slices.Sort(latencies)
		ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
		b.ReportMetric(ms(latencies[len(latencies)*99/100]), "write-p99-ms")
		b.ReportMetric(ms(latencies[len(latencies)-1]), "write-max-ms")
		b.ReportMetric(float64(len(latencies))/float64(b.N), "writes/merge")
	}
}
