package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/movie"
	"moviesdiary/internal/usecase/review"
)

// Resolution is what RunResolution needs of a store: manual movies stored through reviews, and
// the background resolution's writes.
type Resolution interface {
	Outbox
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	LogReview(ctx context.Context, r domain.Review, m domain.Movie, idem *review.Idempotency) (review.Logged, error)
	MovieByExternalID(ctx context.Context, externalID string) (domain.Movie, error)
	movie.ResolutionStore
	RequestMovieResolutions(ctx context.Context, now time.Time, retryAfter, requestedWithin time.Duration, limit int) (int, error)
}

// RunResolution runs the resolution cases against stores open makes.
func RunResolution(t *testing.T, open func(t *testing.T, faults *Faults) Resolution) {
	ctx := context.Background()
	manual := func(t *testing.T, s Resolution, u uuid.UUID, title string, year, day int) domain.Movie {
		t.Helper()
		m, err := domain.NewManualMovie(title, &year, nil)
		must(t, err)
		got, err := s.LogReview(ctx, newReview(u, 4, day), m, nil)
		must(t, err)
		return got.Movie
	}

	t.Run("ManualMovieIsRequested", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u := createUser(t, s, "ann")
		before := events(t, s)
		m := manual(t, s, u.ID, "Arrival", 2016, 1)
		// ReviewLogged, and MovieResolutionRequested with it; stamped, so the requester skips it.
		if n := events(t, s) - before; n != 2 {
			t.Errorf("%d events for a review of a new manual movie, want 2 (ReviewLogged, MovieResolutionRequested)", n)
		}
		n, err := s.RequestMovieResolutions(ctx, time.Now(), 30*24*time.Hour, 24*time.Hour, 10)
		must(t, err)
		if n != 0 {
			t.Errorf("requester asked again for %d movies just requested", n)
		}
		// A day later with no attempt (no handler), it is asked again, once.
		n, err = s.RequestMovieResolutions(ctx, time.Now().Add(25*time.Hour), 30*24*time.Hour, 24*time.Hour, 10)
		must(t, err)
		if n != 1 {
			t.Errorf("a request that came to nothing: %d asked again, want 1", n)
		}
		got, err := s.MovieByID(ctx, m.ID)
		must(t, err)
		if got.ExternalID != nil {
			t.Errorf("manual movie has external id %v", *got.ExternalID)
		}
	})

	t.Run("ResolveTakesTheExternalID", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u := createUser(t, s, "bob")
		m := manual(t, s, u.ID, "Arrival", 2016, 1)
		before := events(t, s)
		res, err := s.SaveMovieResolution(ctx, m.ID, "tmdb:329865", time.Now())
		must(t, err)
		if !res.Resolved || res.DuplicateOf != uuid.Nil {
			t.Fatalf("result %+v, want resolved", res)
		}
		if n := events(t, s) - before; n != 2 {
			t.Errorf("%d events, want MovieDiscovered and MovieEnrichmentRequested", n)
		}
		held, err := s.MovieByExternalID(ctx, "tmdb:329865")
		must(t, err)
		if held.ID != m.ID {
			t.Errorf("tmdb:329865 is held by %s, want the resolved %s", held.ID, m.ID)
		}
		// Again (a redelivery): nothing more.
		before = events(t, s)
		res, err = s.SaveMovieResolution(ctx, m.ID, "tmdb:329865", time.Now())
		must(t, err)
		if res.Resolved || res.DuplicateOf != uuid.Nil || events(t, s) != before {
			t.Errorf("second resolution: %+v and %d events, want nothing", res, events(t, s)-before)
		}
		// Gone: nothing, no error.
		res, err = s.SaveMovieResolution(ctx, uuid.New(), "tmdb:1", time.Now())
		if err != nil || res.Resolved {
			t.Errorf("resolution of a movie gone: %+v, %v", res, err)
		}
		// Resolved movies are never requested.
		n, err := s.RequestMovieResolutions(ctx, time.Now().Add(365*24*time.Hour), time.Hour, time.Hour, 10)
		must(t, err)
		if n != 0 {
			t.Errorf("%d resolved movies requested", n)
		}
	})

	t.Run("FilmAlreadyStoredIsMergedNotCopied", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u := createUser(t, s, "cy")
		logged, err := s.LogReview(ctx, newReview(u.ID, 5, 7), tmdbMovie(7), nil)
		must(t, err)
		stored := logged.Movie
		m := manual(t, s, u.ID, "Movie Seven", 1997, 2) // not "Movie 7": the store would match that one by title
		before := events(t, s)
		res, err := s.SaveMovieResolution(ctx, m.ID, "tmdb:7", time.Now())
		must(t, err)
		if res.Resolved || res.DuplicateOf != stored.ID || res.Merge.Reviews != 1 {
			t.Fatalf("result %+v, want a merge of one review into %s", res, stored.ID)
		}
		// MoviesMerged, MovieDeleted and the moved review's ReviewUpdated.
		if n := events(t, s) - before; n != 3 {
			t.Errorf("%d events for the merge, want 3", n)
		}
		held, err := s.MovieByExternalID(ctx, "tmdb:7")
		must(t, err)
		got, err := s.MovieByID(ctx, m.ID)
		must(t, err)
		if held.ID != stored.ID || got.ID != stored.ID {
			t.Errorf("tmdb:7 held by %s, the manual id reads %s; want both %s", held.ID, got.ID, stored.ID)
		}
		// A redelivery finds the manual movie gone: nothing.
		before = events(t, s)
		res, err = s.SaveMovieResolution(ctx, m.ID, "tmdb:7", time.Now())
		if err != nil || res.Resolved || res.DuplicateOf != uuid.Nil || events(t, s) != before {
			t.Errorf("second resolution %+v, %v, %d events; want nothing", res, err, events(t, s)-before)
		}
		n, err := s.RequestMovieResolutions(ctx, time.Now().Add(365*24*time.Hour), time.Hour, time.Hour, 10)
		must(t, err)
		if n != 0 {
			t.Errorf("%d movies requested after the merge", n)
		}
	})

	t.Run("NoMatchIsRetriedLate", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u := createUser(t, s, "di")
		m := manual(t, s, u.ID, "Home Video", 2003, 1)
		now := time.Now()
		must(t, s.MarkMovieResolutionAttempt(ctx, m.ID, now))
		n, err := s.RequestMovieResolutions(ctx, now.Add(48*time.Hour), 30*24*time.Hour, 24*time.Hour, 10)
		must(t, err)
		if n != 0 {
			t.Errorf("a movie without a match asked again after 2 days (%d)", n)
		}
		n, err = s.RequestMovieResolutions(ctx, now.Add(31*24*time.Hour), 30*24*time.Hour, 24*time.Hour, 10)
		must(t, err)
		if n != 1 {
			t.Errorf("a movie without a match: %d asked after 31 days, want 1", n)
		}
	})
}
