package storetest

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/review"
	"moviesdiary/internal/usecase/watchlist"
)

// Watchlist is what RunWatchlist needs of a store.
type Watchlist interface {
	Outbox
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	MovieByID(ctx context.Context, id uuid.UUID) (domain.Movie, error)
	MovieByExternalID(ctx context.Context, externalID string) (domain.Movie, error)
	LogReview(ctx context.Context, r domain.Review, m domain.Movie, idem *review.Idempotency) (review.Logged, error)
	AddToWatchlist(ctx context.Context, userID uuid.UUID, m domain.Movie, now time.Time) (domain.Movie, error)
	RestoreWatchlistEntry(ctx context.Context, userID uuid.UUID, m domain.Movie, addedAt time.Time) (domain.Movie, bool, error)
	RemoveFromWatchlist(ctx context.Context, userID, movieID uuid.UUID) error
	Watchlist(ctx context.Context, userID uuid.UUID, p domain.Page) (domain.Paged[watchlist.Entry], error)
	OnWatchlist(ctx context.Context, userID, movieID uuid.UUID) (bool, error)
}

// RunWatchlist runs the watchlist cases against stores open makes.
func RunWatchlist(t *testing.T, open func(t *testing.T, faults *Faults) Watchlist) {
	ctx := context.Background()

	t.Run("RestoredEntryKeepsItsTimeOnce", func(t *testing.T) {
		// An entry restored from an account archive keeps the time it was added, with its event;
		// restoring it again changes nothing and writes no event.
		t.Parallel()
		s := open(t, &Faults{})
		u := createUser(t, s, "restorer")
		added := time.Date(2019, 4, 5, 6, 7, 8, 0, time.UTC)
		m, isNew, err := s.RestoreWatchlistEntry(ctx, u.ID, domain.Movie{Title: "Solaris", ReleaseYear: 1972}, added)
		must(t, err)
		if !isNew {
			t.Fatal("a first restore reports the entry as there already")
		}
		before := events(t, s)
		_, isNew, err = s.RestoreWatchlistEntry(ctx, u.ID, domain.Movie{Title: "Solaris", ReleaseYear: 1972}, added.Add(time.Hour))
		must(t, err)
		if isNew || events(t, s) != before {
			t.Fatalf("a second restore: new %v, events %d → %d", isNew, before, events(t, s))
		}
		page, err := s.Watchlist(ctx, u.ID, domain.Page{Limit: 10})
		must(t, err)
		if len(page.Items) != 1 || page.Items[0].Movie.ID != m.ID || !page.Items[0].AddedAt.Equal(added) {
			t.Fatalf("watchlist = %+v, want Solaris added at %v", page.Items, added)
		}
	})

	t.Run("ConcurrentAddsOfOneNewFilmMakeOneMovie", func(t *testing.T) {
		// Twenty users add the same film, typed in by hand, at once; two more log a review of it:
		// one movie, whichever transaction stores it (issue 33: PostgreSQL made 5 and 8).
		t.Parallel()
		s := open(t, &Faults{})
		var users []domain.User
		for i := range 22 {
			users = append(users, createUser(t, s, "u"+strconv.Itoa(i)))
		}
		film := func() domain.Movie { return domain.Movie{Title: "Stalker", ReleaseYear: 1979} }
		var wg sync.WaitGroup
		var mu sync.Mutex
		ids := map[uuid.UUID]bool{}
		errs := make(chan error, len(users))
		for i, u := range users {
			wg.Go(func() {
				var m domain.Movie
				var err error
				if i < 20 {
					m, err = s.AddToWatchlist(ctx, u.ID, film(), t0)
				} else {
					var l review.Logged
					l, err = s.LogReview(ctx, newReview(u.ID, 5, 1), film(), nil)
					m = l.Movie
				}
				mu.Lock()
				ids[m.ID] = true
				mu.Unlock()
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			must(t, err)
		}
		if len(ids) != 1 {
			t.Fatalf("concurrent adds of one new film made %d movies, want 1", len(ids))
		}
	})

	t.Run("OneManualFilmWhateverItsCaseAndSpacing", func(t *testing.T) {
		// The manual key folds case and spacing (domain.ManualMovieKey), where the lookup by
		// title does not: the second spelling lands on the first movie, by the unique key.
		t.Parallel()
		s := open(t, &Faults{})
		u := createUser(t, s, "ann")
		dir := func(d string) *string { return &d }
		for _, pair := range [][2]domain.Movie{
			{{Title: "The Thing", ReleaseYear: 1982}, {Title: "the  THING", ReleaseYear: 1982}},
			{{Title: "Alien", ReleaseYear: 1979, Director: dir("Ridley Scott")}, {Title: "ALIEN", ReleaseYear: 1979, Director: dir("ridley   scott")}},
		} {
			first, err := s.AddToWatchlist(ctx, u.ID, pair[0], t0)
			must(t, err)
			second, err := s.AddToWatchlist(ctx, u.ID, pair[1], t0)
			must(t, err)
			if first.ID != second.ID {
				t.Fatalf("%q and %q made two movies, want one", pair[0].Title, pair[1].Title)
			}
		}
		other, err := s.AddToWatchlist(ctx, u.ID, domain.Movie{Title: "Alien", ReleaseYear: 1979, Director: dir("Someone Else")}, t0)
		must(t, err)
		if on, err := s.Watchlist(ctx, u.ID, domain.Page{Limit: 10}); err != nil || on.Total != 3 {
			t.Fatalf("watchlist: %+v %v, want three films (another director is another film: %v)", on.Total, err, other.ID)
		}
	})

	t.Run("AddPageRemove", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice, bob := createUser(t, s, "alice"), createUser(t, s, "bob")
		var added []uuid.UUID
		for i := range 5 {
			m, err := s.AddToWatchlist(ctx, alice.ID, tmdbMovie(i), t0.Add(time.Duration(i)*time.Minute))
			must(t, err)
			added = append(added, m.ID)
		}
		// 5 new movies (2 events each) and 5 entries.
		if n := events(t, s); n != 15 {
			t.Fatalf("%d events after five adds of new movies, want 15", n)
		}
		again, err := s.AddToWatchlist(ctx, alice.ID, tmdbMovie(0), t0.Add(time.Hour))
		must(t, err)
		if again.ID != added[0] || events(t, s) != 15 {
			t.Fatalf("adding again: movie %v (want %v), %d events (want 15)", again.ID, added[0], events(t, s))
		}
		newest := slices.Clone(added)
		slices.Reverse(newest)
		var got []uuid.UUID
		for offset := 0; offset < 5; offset += 2 {
			p, err := s.Watchlist(ctx, alice.ID, domain.Page{Limit: 2, Offset: offset})
			must(t, err)
			if p.Total != 5 {
				t.Fatalf("watchlist total %d, want 5", p.Total)
			}
			for _, e := range p.Items {
				got = append(got, e.Movie.ID)
			}
		}
		if !slices.Equal(got, newest) {
			t.Fatalf("watchlist pages %v, want newest first %v", got, newest)
		}
		p, err := s.Watchlist(ctx, alice.ID, domain.Page{Limit: 1})
		must(t, err)
		if e := p.Items[0]; !e.AddedAt.Equal(t0.Add(4*time.Minute)) || e.Movie.Title != "Movie 4" {
			t.Fatalf("entry %+v", e)
		}
		if on, err := s.OnWatchlist(ctx, alice.ID, added[1]); err != nil || !on {
			t.Fatalf("on alice's watchlist: %v %v", on, err)
		}
		if on, err := s.OnWatchlist(ctx, bob.ID, added[1]); err != nil || on {
			t.Fatalf("on bob's watchlist: %v %v", on, err)
		}

		// Removing the only reference to a movie deletes it, with MovieDeleted; a movie still on
		// another watchlist stays.
		_, err = s.AddToWatchlist(ctx, bob.ID, tmdbMovie(1), t0)
		must(t, err)
		before := events(t, s)
		must(t, s.RemoveFromWatchlist(ctx, alice.ID, added[0]))
		must(t, s.RemoveFromWatchlist(ctx, alice.ID, added[1]))
		if n := events(t, s); n != before+3 {
			t.Fatalf("%d events after two removals (one orphan), want %d", n, before+3)
		}
		if _, err := s.MovieByID(ctx, added[0]); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("the orphan movie: %v", err)
		}
		if _, err := s.MovieByID(ctx, added[1]); err != nil {
			t.Fatalf("a movie on bob's watchlist: %v", err)
		}
		wantKind(t, s.RemoveFromWatchlist(ctx, alice.ID, added[0]), domain.KindNotFound, "")
		wantKind(t, s.RemoveFromWatchlist(ctx, alice.ID, uuid.New()), domain.KindNotFound, "")

		// Logging a review takes the movie off the watchlist, with WatchlistEntryRemoved.
		before = events(t, s)
		_, err = s.LogReview(ctx, newReview(alice.ID, 4, 1), tmdbMovie(2), nil)
		must(t, err)
		if on, _ := s.OnWatchlist(ctx, alice.ID, added[2]); on {
			t.Fatal("a reviewed movie is still on the watchlist")
		}
		if n := events(t, s); n != before+2 {
			t.Fatalf("%d events after reviewing a watchlisted movie, want %d", n, before+2)
		}
	})

	t.Run("AtomicWrites", func(t *testing.T) {
		t.Parallel()
		faults := &Faults{}
		s := open(t, faults)
		alice := createUser(t, s, "alice")
		kept, err := s.AddToWatchlist(ctx, alice.ID, tmdbMovie(1), t0)
		must(t, err)
		before := events(t, s)
		faults.Set(true)
		_, addErr := s.AddToWatchlist(ctx, alice.ID, tmdbMovie(2), t0)
		removeErr := s.RemoveFromWatchlist(ctx, alice.ID, kept.ID)
		faults.Set(false)
		if !errors.Is(addErr, ErrInjected) || !errors.Is(removeErr, ErrInjected) {
			t.Fatalf("writes with a failing enqueue: add %v, remove %v", addErr, removeErr)
		}
		if _, err := s.MovieByExternalID(ctx, "tmdb:2"); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("the movie of the failed add: %v", err)
		}
		p, err := s.Watchlist(ctx, alice.ID, domain.Page{Limit: 10})
		must(t, err)
		if p.Total != 1 || len(p.Items) != 1 || p.Items[0].Movie.ID != kept.ID {
			t.Fatalf("watchlist after the failed writes: total %d, %+v", p.Total, p.Items)
		}
		if _, err := s.MovieByID(ctx, kept.ID); err != nil {
			t.Fatalf("the movie of the failed removal: %v", err)
		}
		if n := events(t, s); n != before {
			t.Fatalf("%d events after the failed writes, want %d", n, before)
		}
	})
}
