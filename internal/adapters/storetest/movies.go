package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/movie"
	"moviesdiary/internal/usecase/review"
)

// Movies is what RunMovies needs of a store: the catalogue's reads and the reviews that feed
// its maintained stats.
type Movies interface {
	Outbox
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	LogReview(ctx context.Context, r domain.Review, m domain.Movie, idem *review.Idempotency) (review.Logged, error)
	UpdateReview(ctx context.Context, id uuid.UUID, update func(*domain.Review) error) (domain.Review, error)
	DeleteReview(ctx context.Context, id uuid.UUID, check func(domain.Review) error) error
	Movies(ctx context.Context, f movie.Filter, p domain.Page) (domain.Paged[domain.Movie], error)
	MovieStats(ctx context.Context, id uuid.UUID) (movie.Stats, error)
	MovieReviews(ctx context.Context, id uuid.UUID, p domain.Page) (domain.Paged[movie.Viewing], error)
	MovieProfile(ctx context.Context, id uuid.UUID) (json.RawMessage, error)
	Person(ctx context.Context, id uuid.UUID) (movie.Person, error)
	PersonCredits(ctx context.Context, id uuid.UUID) ([]movie.Credit, error)
}

// RunMovies runs the catalogue cases against stores open makes.
func RunMovies(t *testing.T, open func(t *testing.T, faults *Faults) Movies) {
	ctx := context.Background()
	keep := func(domain.Review) error { return nil }

	t.Run("StatsAfterLogEditDelete", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice, bob := createUser(t, s, "alice"), createUser(t, s, "bob")
		a := logReview(t, s, newReview(alice.ID, 4, 1), tmdbMovie(1))
		b := logReview(t, s, newReview(bob.ID, 2, 2), tmdbMovie(1))
		c := logReview(t, s, newReview(alice.ID, 5, 3), tmdbMovie(1))
		id := a.Movie.ID
		check := func(total int, avg float64, hist [5]int) {
			t.Helper()
			st, err := s.MovieStats(ctx, id)
			must(t, err)
			if st.TotalCount != total || st.Histogram != hist || st.FederatedCount != 0 ||
				(total == 0) != (st.AvgRating == nil) || st.AvgRating != nil && *st.AvgRating != avg {
				t.Fatalf("stats %+v (avg %v), want %d reviews, avg %v, %v", st, st.AvgRating, total, avg, hist)
			}
			p, err := s.MovieReviews(ctx, id, domain.Page{Limit: 10})
			must(t, err)
			if p.Total != total || len(p.Items) != total {
				t.Fatalf("movie reviews: total %d, %d items, want %d", p.Total, len(p.Items), total)
			}
		}
		check(3, 11.0/3, [5]int{0, 1, 0, 1, 1})
		_, err := s.UpdateReview(ctx, b.Review.ID, func(r *domain.Review) error { r.Rating = 4; return nil })
		must(t, err)
		check(3, 13.0/3, [5]int{0, 0, 0, 2, 1})
		p, err := s.MovieReviews(ctx, id, domain.Page{Limit: 2, Offset: 1})
		must(t, err)
		if len(p.Items) != 2 || p.Items[0].Review.ID != b.Review.ID || p.Items[1].Review.ID != a.Review.ID ||
			p.Items[0].UserDisplay != "bob" {
			t.Fatalf("second page of the movie's reviews, newest viewing first: %+v", p.Items)
		}
		must(t, s.DeleteReview(ctx, c.Review.ID, keep))
		check(2, 4, [5]int{0, 0, 0, 2, 0})
		must(t, s.DeleteReview(ctx, a.Review.ID, keep))
		must(t, s.DeleteReview(ctx, b.Review.ID, keep))
		check(0, 0, [5]int{})
	})

	t.Run("CatalogueFilters", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice := createUser(t, s, "alice")
		fr, en := "fr", "en"
		for i, m := range []domain.Movie{
			{Title: "the 100% movie", ReleaseYear: 2001, Genres: []string{"Comedy"}, OriginalLanguage: &en},
			{Title: "Amélie", ReleaseYear: 2001, Genres: []string{"Comedy", "Romance"}, OriginalLanguage: &fr},
			{Title: "Zodiac", ReleaseYear: 2007, Genres: []string{"Crime"}, OriginalLanguage: &en},
			{Title: "bad_movie", ReleaseYear: 2010, Genres: []string{"Horror"}},
		} {
			logReview(t, s, newReview(alice.ID, 3, i), m)
		}
		titles := func(f movie.Filter, p domain.Page) ([]string, int) {
			t.Helper()
			got, err := s.Movies(ctx, f, p)
			must(t, err)
			var out []string
			for _, m := range got.Items {
				out = append(out, m.Title)
			}
			return out, got.Total
		}
		for _, c := range []struct {
			f    movie.Filter
			want []string
		}{
			{movie.Filter{}, []string{"Amélie", "bad_movie", "the 100% movie", "Zodiac"}},
			{movie.Filter{Search: "ZOD"}, []string{"Zodiac"}},
			{movie.Filter{Search: "100%"}, []string{"the 100% movie"}},
			{movie.Filter{Search: "d_m"}, []string{"bad_movie"}},
			{movie.Filter{Search: "%"}, []string{"the 100% movie"}},
			{movie.Filter{Genre: "comedy"}, []string{"Amélie", "the 100% movie"}},
			{movie.Filter{Genre: "Comedy", Language: "en"}, []string{"the 100% movie"}},
			{movie.Filter{Language: "de"}, nil},
		} {
			got, n := titles(c.f, domain.Page{Limit: 10})
			if !slices.Equal(got, c.want) || n != len(c.want) {
				t.Errorf("filter %+v: %v (total %d), want %v", c.f, got, n, c.want)
			}
		}
		got, n := titles(movie.Filter{}, domain.Page{Limit: 2, Offset: 1})
		if !slices.Equal(got, []string{"bad_movie", "the 100% movie"}) || n != 4 {
			t.Errorf("second page: %v (total %d)", got, n)
		}
	})

	t.Run("NotFound", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		st, err := s.MovieStats(ctx, uuid.New())
		must(t, err)
		if st.TotalCount != 0 || st.AvgRating != nil {
			t.Fatalf("stats of an unknown movie: %+v", st)
		}
		_, err = s.MovieProfile(ctx, uuid.New())
		wantKind(t, err, domain.KindNotFound, "")
		_, err = s.Person(ctx, uuid.New())
		wantKind(t, err, domain.KindNotFound, "Entity not found: person")
		credits, err := s.PersonCredits(ctx, uuid.New())
		if err != nil || len(credits) != 0 {
			t.Fatalf("credits of an unknown person: %v, %v", credits, err)
		}
		if _, err := s.MovieReviews(ctx, uuid.New(), domain.Page{Limit: 5}); err != nil && !errors.Is(err, domain.ErrNotFound) {
			t.Fatal(err)
		}
	})
}
