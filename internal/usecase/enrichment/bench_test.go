package enrichment_test

import (
	"context"
	"testing"
	"time"

	"moviesdiary/internal/adapters/tmdb"
	"moviesdiary/internal/app/mediatest"
	"moviesdiary/internal/usecase/enrichment"
)

// BenchmarkMovieEnrichment is one full enrichment of Blade Runner against the fake TMDb over
// loopback (/find, /movie with credits and keywords, then the one-transaction write): each
// iteration moves the clock past the 30-day freshness so the profile is stale again.
func BenchmarkMovieEnrichment(b *testing.B) {
	env := mediatest.New(b)
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	h := enrichment.NewMovies(env.Store, tmdb.Enrichment{C: env.TMDb.Client()}, func() time.Time { return now }, env.Log)
	bd := &bundle{Env: env, movie: env.AddMovie(mediatest.BladeRunner, "Blade Runner", 1982)}
	ctx := context.Background()
	for b.Loop() {
		now = now.Add(31 * 24 * time.Hour)
		if err := h.Handle(ctx, bd.request()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFreshEnrichmentRequest is a request for a fresh movie: a read, no TMDb call.
func BenchmarkFreshEnrichmentRequest(b *testing.B) {
	env := mediatest.New(b)
	h := enrichment.NewMovies(env.Store, tmdb.Enrichment{C: env.TMDb.Client()}, nil, env.Log)
	bd := &bundle{Env: env, movie: env.AddMovie(mediatest.BladeRunner, "Blade Runner", 1982)}
	ctx := context.Background()
	if err := h.Handle(ctx, bd.request()); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := h.Handle(ctx, bd.request()); err != nil {
			b.Fatal(err)
		}
	}
	if n := env.TMDb.Count("/3/movie/78"); n != 1 {
		b.Fatalf("fresh requests called TMDb: %d", n)
	}
}
