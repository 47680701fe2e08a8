package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/integration"
	"moviesdiary/internal/usecase/movie"
	"moviesdiary/internal/usecase/review"
)

// Merge is what RunMerge needs of a store: movies stored through reviews, the watchlist and the
// watch queue, their merge, and the lookups that follow a merged movie's redirect.
type Merge interface {
	Outbox
	EventCounter
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	LogReview(ctx context.Context, r domain.Review, m domain.Movie, idem *review.Idempotency) (review.Logged, error)
	MovieByID(ctx context.Context, id uuid.UUID) (domain.Movie, error)
	MovieByExternalID(ctx context.Context, externalID string) (domain.Movie, error)
	MovieStats(ctx context.Context, id uuid.UUID) (movie.Stats, error)
	MovieReviews(ctx context.Context, id uuid.UUID, p domain.Page) (domain.Paged[movie.Viewing], error)
	AddToWatchlist(ctx context.Context, userID uuid.UUID, m domain.Movie, now time.Time) (domain.Movie, error)
	OnWatchlist(ctx context.Context, userID, movieID uuid.UUID) (bool, error)
	SaveWatch(ctx context.Context, ev domain.WatchEvent, since time.Time, confirm *integration.Confirmed) (bool, error)
	WatchEvent(ctx context.Context, id uuid.UUID) (domain.WatchEvent, error)
	movie.MergeStore
	movie.ResolutionStore
}

// manualMovie stores a review by u of a movie typed in by hand and returns the movie.
func manualMovie(t *testing.T, s reviewLogger, u uuid.UUID, title string, year, rating, day int) domain.Movie {
	t.Helper()
	m, err := domain.NewManualMovie(title, &year, nil)
	must(t, err)
	return logReview(t, s, newReview(u, rating, day), m).Movie
}

// byID names a stored movie by its id alone, as a form choosing it from the catalogue does.
func byID(m domain.Movie) domain.Movie {
	return domain.Movie{ID: m.ID, Title: m.Title, ReleaseYear: m.ReleaseYear, Genres: []string{}}
}

// wantStats fails the test unless the movie's kept counts are n reviews summing sum stars.
func wantStats(t *testing.T, s Merge, id uuid.UUID, n, sum int) {
	t.Helper()
	st, err := s.MovieStats(context.Background(), id)
	must(t, err)
	got := 0
	for i, c := range st.Histogram {
		got += (i + 1) * c
	}
	if st.TotalCount != n || got != sum {
		t.Errorf("movie %s: %d reviews, %d stars; want %d, %d", id, st.TotalCount, got, n, sum)
	}
	p, err := s.MovieReviews(context.Background(), id, domain.Page{Limit: 1000})
	must(t, err)
	if p.Total != n || len(p.Items) != n {
		t.Errorf("movie %s pages %d reviews (total %d), want %d", id, len(p.Items), p.Total, n)
	}
}

// plus is totals with delta added.
func plus(totals, delta map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range totals {
		out[k] = v
	}
	for k, v := range delta {
		out[k] += v
	}
	return out
}

// RunMerge runs the merge cases against stores open makes.
func RunMerge(t *testing.T, open func(t *testing.T, faults *Faults) Merge) {
	ctx := context.Background()

	t.Run("EverythingMovesAndTheIDRedirects", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		ann, bob, cy := createUser(t, s, "ann"), createUser(t, s, "bob"), createUser(t, s, "cy")
		film := logReview(t, s, newReview(ann.ID, 5, 1), tmdbMovie(7)).Movie
		manual := manualMovie(t, s, ann.ID, "Movie Seven", 1997, 3, 2)
		logReview(t, s, newReview(bob.ID, 2, 3), byID(manual))
		// cy has the film on the watchlist under both movies, bob under the manual one only.
		for _, w := range []struct {
			u uuid.UUID
			m domain.Movie
		}{{cy.ID, byID(manual)}, {cy.ID, byID(film)}, {bob.ID, byID(manual)}} {
			_, err := s.AddToWatchlist(ctx, w.u, w.m, t0)
			must(t, err)
		}
		watch := domain.WatchEvent{ID: uuid.New(), UserID: cy.ID, Source: domain.SourcePlex, Title: "Movie Seven",
			Year: ref(1997), MovieID: &manual.ID, Status: domain.WatchPending, WatchedAt: t0}
		if _, err := s.SaveWatch(ctx, watch, t0.Add(-time.Hour), nil); err != nil {
			t.Fatal(err)
		}
		// The counter counts a row once every older transaction in the cluster has ended
		// (PostgreSQL): wait until it has every row of the set-up, or the merge's would mix in.
		counted := NewCounted(s)
		nEvents := events(t, s)
		counted.UntilSum(t, nEvents)
		before := counted.Totals()

		dry, err := s.MergeMovies(ctx, manual.ID, film.ID, t0, true)
		must(t, err)
		want := movie.MergeResult{From: manual.ID, Into: film.ID, Reviews: 2, Announced: 2, Watchlist: 1, WatchlistKept: 1,
			WatchEvents: 1, DryRun: true}
		if dry != want {
			t.Errorf("dry run %+v, want %+v", dry, want)
		}
		if events(t, s) != nEvents {
			t.Error("a dry run enqueued events")
		}
		if m, err := s.MovieByID(ctx, manual.ID); err != nil || m.ID != manual.ID {
			t.Fatalf("after a dry run the manual movie reads %v, %v", m.ID, err)
		}
		wantStats(t, s, manual.ID, 2, 5)

		res, err := s.MergeMovies(ctx, manual.ID, film.ID, t0, false)
		must(t, err)
		want.DryRun = false
		if res != want {
			t.Errorf("merge %+v, want %+v", res, want)
		}
		wantStats(t, s, film.ID, 3, 10)
		wantStats(t, s, manual.ID, 0, 0)
		// The old id answers the film; the film's external id still does.
		for _, lookup := range []func() (domain.Movie, error){
			func() (domain.Movie, error) { return s.MovieByID(ctx, manual.ID) },
			func() (domain.Movie, error) { return s.MovieByExternalID(ctx, "tmdb:7") },
		} {
			if m, err := lookup(); err != nil || m.ID != film.ID {
				t.Errorf("lookup after the merge: %v, %v; want the film %s", m.ID, err, film.ID)
			}
		}
		for _, w := range []struct {
			u    uuid.UUID
			m    uuid.UUID
			want bool
		}{{cy.ID, film.ID, true}, {bob.ID, film.ID, true}, {cy.ID, manual.ID, false}, {bob.ID, manual.ID, false}} {
			if on, err := s.OnWatchlist(ctx, w.u, w.m); err != nil || on != w.want {
				t.Errorf("user %s, movie %s: on the watchlist %v (%v), want %v", w.u, w.m, on, err, w.want)
			}
		}
		if got, err := s.WatchEvent(ctx, watch.ID); err != nil || got.MovieID == nil || *got.MovieID != film.ID {
			t.Errorf("watch-queue item names %v (%v), want the film", got.MovieID, err)
		}
		// MoviesMerged, MovieDeleted, ReviewUpdated of the two local reviews, and per moved entry
		// its removal, and the addition of bob's (cy kept the film's entry).
		counted.Until(t, plus(before, map[string]int{"MoviesMerged": 1, "MovieDeleted": 1, "ReviewUpdated": 2,
			"WatchlistEntryRemoved": 2, "WatchlistEntryAdded": 1}))

		// Again (a redelivery, a second operator): nothing.
		nEvents = events(t, s)
		again, err := s.MergeMovies(ctx, manual.ID, film.ID, t0, false)
		must(t, err)
		if !again.AlreadyMerged || again.Reviews != 0 || events(t, s) != nEvents {
			t.Errorf("second merge %+v with %d events, want already merged and nothing", again, events(t, s)-nEvents)
		}
		wantStats(t, s, film.ID, 3, 10)

		// A review naming the old id lands on the film, and takes it off bob's watchlist.
		logged := logReview(t, s, newReview(bob.ID, 4, 9), byID(manual))
		if logged.Movie.ID != film.ID {
			t.Errorf("a review of the merged id stored on %s, want the film %s", logged.Movie.ID, film.ID)
		}
		if on, err := s.OnWatchlist(ctx, bob.ID, film.ID); err != nil || on {
			t.Errorf("after watching it, bob's watchlist holds the film: %v, %v", on, err)
		}
		wantStats(t, s, film.ID, 4, 14)
	})

	t.Run("BadMergesAreRefused", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		ann := createUser(t, s, "ann")
		a := logReview(t, s, newReview(ann.ID, 5, 1), tmdbMovie(1)).Movie
		b := logReview(t, s, newReview(ann.ID, 4, 2), tmdbMovie(2)).Movie
		manual := manualMovie(t, s, ann.ID, "Home Video", 2003, 3, 3)
		n := events(t, s)
		_, err := s.MergeMovies(ctx, manual.ID, manual.ID, t0, false)
		wantKind(t, err, domain.KindInvalid, "")
		_, err = s.MergeMovies(ctx, uuid.New(), a.ID, t0, false)
		wantKind(t, err, domain.KindNotFound, "")
		_, err = s.MergeMovies(ctx, manual.ID, uuid.New(), t0, false)
		wantKind(t, err, domain.KindNotFound, "")
		// Two TMDb films are two films.
		_, err = s.MergeMovies(ctx, a.ID, b.ID, t0, false)
		wantKind(t, err, domain.KindConflict, "")
		if events(t, s) != n {
			t.Error("a refused merge enqueued events")
		}
		wantStats(t, s, a.ID, 1, 5)
		wantStats(t, s, manual.ID, 1, 3)
		// Merged into a, then into a's id again through the redirect: refused the other way round.
		_, err = s.MergeMovies(ctx, manual.ID, a.ID, t0, false)
		must(t, err)
		_, err = s.MergeMovies(ctx, a.ID, manual.ID, t0, false)
		wantKind(t, err, domain.KindInvalid, "")
		// Resolving by hand: a movie merged away, a movie resolved otherwise.
		_, err = s.ResolveMovie(ctx, manual.ID, "tmdb:9", t0, false)
		wantKind(t, err, domain.KindConflict, "")
		_, err = s.ResolveMovie(ctx, a.ID, "tmdb:9", t0, false)
		wantKind(t, err, domain.KindConflict, "")
		_, err = s.ResolveMovie(ctx, uuid.New(), "tmdb:9", t0, false)
		wantKind(t, err, domain.KindNotFound, "")
	})

	t.Run("AnIMDbMovieMergedIntoItsTMDbFilm", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		ann := createUser(t, s, "ann")
		film := logReview(t, s, newReview(ann.ID, 5, 1), tmdbMovie(3)).Movie
		imdb := "tt0000003"
		old := logReview(t, s, newReview(ann.ID, 4, 2), domain.Movie{ExternalID: &imdb, Title: "Movie 3", ReleaseYear: 1993}).Movie
		_, err := s.MergeMovies(ctx, old.ID, film.ID, t0, false)
		must(t, err)
		// The IMDb id names the film now: a review of it is not a new movie.
		if m, err := s.MovieByExternalID(ctx, imdb); err != nil || m.ID != film.ID {
			t.Errorf("%s reads %v, %v; want the film", imdb, m.ID, err)
		}
		logged := logReview(t, s, newReview(ann.ID, 3, 3), domain.Movie{ExternalID: &imdb, Title: "Movie 3", ReleaseYear: 1993})
		if logged.Movie.ID != film.ID {
			t.Errorf("a review of %s stored on %s, want the film %s", imdb, logged.Movie.ID, film.ID)
		}
		wantStats(t, s, film.ID, 3, 12)
		// A manual movie merged into the IMDb one's id lands on the film (one hop).
		manual := manualMovie(t, s, ann.ID, "Three", 1993, 1, 4)
		res, err := s.MergeMovies(ctx, manual.ID, old.ID, t0, false)
		must(t, err)
		if res.Into != film.ID {
			t.Errorf("merged into %s, want the film %s", res.Into, film.ID)
		}
		wantStats(t, s, film.ID, 4, 13)
	})

	t.Run("ResolutionMergesIntoTheStoredFilm", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		ann := createUser(t, s, "ann")
		film := logReview(t, s, newReview(ann.ID, 5, 1), tmdbMovie(8)).Movie
		manual := manualMovie(t, s, ann.ID, "Movie Eight", 1998, 2, 2)
		dry, err := s.ResolveMovie(ctx, manual.ID, "tmdb:8", t0, true)
		must(t, err)
		if dry.DuplicateOf != film.ID || !dry.Merge.DryRun || dry.Merge.Reviews != 1 {
			t.Errorf("dry resolution %+v, want a merge of one review into %s", dry, film.ID)
		}
		wantStats(t, s, manual.ID, 1, 2)
		res, err := s.SaveMovieResolution(ctx, manual.ID, "tmdb:8", t0)
		must(t, err)
		if res.Resolved || res.DuplicateOf != film.ID || res.Merge.Reviews != 1 {
			t.Errorf("resolution %+v, want a merge into %s", res, film.ID)
		}
		wantStats(t, s, film.ID, 2, 7)
		if m, err := s.MovieByID(ctx, manual.ID); err != nil || m.ID != film.ID {
			t.Errorf("the manual id reads %v, %v; want the film", m.ID, err)
		}
		// A manual movie resolved by hand to a film not stored takes the id.
		other := manualMovie(t, s, ann.ID, "Obscure", 1961, 4, 3)
		res, err = s.ResolveMovie(ctx, other.ID, "tmdb:99", t0, false)
		must(t, err)
		if m, err := s.MovieByExternalID(ctx, "tmdb:99"); !res.Resolved || err != nil || m.ID != other.ID {
			t.Errorf("resolution by hand %+v; tmdb:99 reads %v, %v", res, m.ID, err)
		}
	})

	t.Run("ReviewsLoggedDuringTheMergeAllLand", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		const writers, each = 4, 5
		users := make([]domain.User, writers)
		for i := range users {
			users[i] = createUser(t, s, fmt.Sprintf("w%d", i))
		}
		film := logReview(t, s, newReview(users[0].ID, 5, 1), tmdbMovie(4)).Movie
		manual := manualMovie(t, s, users[0].ID, "Movie Four", 1994, 3, 2)
		for i := range 20 {
			logReview(t, s, newReview(users[i%writers].ID, 1+i%5, 10+i), byID(manual))
		}
		reviews, stars := 22, 5+3
		for i := range 20 {
			stars += 1 + i%5
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		errs := make(chan error, writers*each+1)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for i := range each {
					target := byID(manual) // half of them name the merged movie, half the film
					if (w+i)%2 == 0 {
						target = byID(film)
					}
					got, err := s.LogReview(ctx, newReview(users[w].ID, 4, 100+w*each+i), target, nil)
					if err == nil && got.Movie.ID != film.ID && got.Movie.ID != manual.ID {
						err = fmt.Errorf("a review landed on a third movie %s", got.Movie.ID)
					}
					errs <- err
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, err := s.MergeMovies(ctx, manual.ID, film.ID, t0, false)
			errs <- err
		}()
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		reviews += writers * each
		stars += 4 * writers * each
		wantStats(t, s, film.ID, reviews, stars)
		wantStats(t, s, manual.ID, 0, 0)
		if m, err := s.MovieByID(ctx, manual.ID); err != nil || m.ID != film.ID {
			t.Errorf("the merged id reads %v, %v; want the film", m.ID, err)
		}
		if res, err := s.MergeMovies(ctx, manual.ID, film.ID, t0, false); err != nil || !res.AlreadyMerged {
			t.Errorf("merge again: %+v, %v; want already merged", res, err)
		}
	})
}
