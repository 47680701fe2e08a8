package movie_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/movie"
)

func TestFinder(t *testing.T) {
	t.Parallel()
	arrival := movie.Candidate{TMDbID: 329865, Title: "Arrival", Year: 2016, PosterPath: "/x.jpg"}
	stored := domain.Movie{ID: domain.MovieIDFor("tmdb:329865"), Title: "Arrival", ReleaseYear: 2016}

	t.Run("lists the provider's films with the stored movie of each", func(t *testing.T) {
		t.Parallel()
		var asked movie.TitleQuery
		md := &fakeMetadata{t: t, SearchFunc: func(_ context.Context, q movie.TitleQuery) ([]movie.Candidate, error) {
			asked = q
			return []movie.Candidate{arrival, {TMDbID: 0, Title: "garbage"}, {TMDbID: 7, Title: " "},
				{TMDbID: 8, Title: "Arrivals", Year: 1999}}, nil
		}}
		f := movie.NewFinder(fakeLookup{movies: map[string]domain.Movie{"tmdb:329865": stored}}, md)
		got, err := f.Find(context.Background(), movie.TitleQuery{Title: " arrival ", Year: 2016})
		if err != nil {
			t.Fatal(err)
		}
		if asked.Title != "arrival" || asked.Year != 2016 {
			t.Errorf("asked %+v", asked)
		}
		if len(got) != 2 || got[0].TMDbID != 329865 || got[0].Stored == nil || got[0].Stored.ID != stored.ID ||
			got[1].TMDbID != 8 || got[1].Stored != nil {
			t.Errorf("found %+v", got)
		}
	})
	t.Run("a provider failure is returned, a bad query refused, no provider said", func(t *testing.T) {
		t.Parallel()
		outage := errors.New("tmdb down")
		md := &fakeMetadata{t: t, SearchFunc: func(context.Context, movie.TitleQuery) ([]movie.Candidate, error) {
			return nil, outage
		}}
		f := movie.NewFinder(fakeLookup{}, md)
		if _, err := f.Find(context.Background(), movie.TitleQuery{Title: "Arrival"}); !errors.Is(err, outage) {
			t.Errorf("outage: %v", err)
		}
		if _, err := f.Find(context.Background(), movie.TitleQuery{Title: "  "}); !errors.Is(err, domain.ErrInvalid) {
			t.Errorf("blank title: %v", err)
		}
		if _, err := f.Find(context.Background(), movie.TitleQuery{Title: "Arrival", Year: 12}); !errors.Is(err, domain.ErrInvalid) {
			t.Errorf("bad year: %v", err)
		}
		if md.calls.Load() != 1 {
			t.Errorf("%d provider calls, want 1", md.calls.Load())
		}
		var none *movie.Finder
		if none.Enabled() || movie.NewFinder(fakeLookup{}, nil).Enabled() {
			t.Error("a finder without provider is enabled")
		}
		if _, err := movie.NewFinder(fakeLookup{}, nil).Find(context.Background(), movie.TitleQuery{Title: "x"}); !errors.Is(err, movie.ErrNoProvider) {
			t.Errorf("no provider: %v", err)
		}
	})
	t.Run("the budget bounds a slow provider", func(t *testing.T) {
		t.Parallel()
		md := &fakeMetadata{t: t, SearchFunc: func(ctx context.Context, _ movie.TitleQuery) ([]movie.Candidate, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}}
		f := movie.NewFinder(fakeLookup{}, md).WithBudget(10 * time.Millisecond)
		if _, err := f.Find(context.Background(), movie.TitleQuery{Title: "Arrival"}); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("slow provider: %v", err)
		}
	})
}
