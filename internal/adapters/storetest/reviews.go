package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/review"
	"moviesdiary/internal/usecase/user"
)

// Reviews is what RunReviews needs of a store: the diary's writes and reads with their counts,
// the following feed and the follows that feed it.
type Reviews interface {
	Outbox
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	UserStats(ctx context.Context, id uuid.UUID) (user.Stats, error)
	MovieByID(ctx context.Context, id uuid.UUID) (domain.Movie, error)
	MovieByExternalID(ctx context.Context, externalID string) (domain.Movie, error)
	LogReview(ctx context.Context, r domain.Review, m domain.Movie, idem *review.Idempotency) (review.Logged, error)
	UpdateReview(ctx context.Context, id uuid.UUID, update func(*domain.Review) error) (domain.Review, error)
	DeleteReview(ctx context.Context, id uuid.UUID, check func(domain.Review) error) error
	Diary(ctx context.Context, f review.DiaryFilter, p domain.Page) (domain.Paged[review.Entry], error)
	Feed(ctx context.Context, sort review.Sort, p domain.Page) (domain.Paged[review.Entry], error)
	History(ctx context.Context, movieID uuid.UUID) ([]domain.Review, error)
	FollowingFeed(ctx context.Context, owner uuid.UUID, p domain.Page) (domain.Paged[review.Entry], error)
	ReviewEntry(ctx context.Context, id uuid.UUID) (review.Entry, error)
	DiaryExportBatch(ctx context.Context, user uuid.UUID, after *review.ExportCursor, limit int) ([]review.Entry, *review.ExportCursor, error)
	RecentReviews(ctx context.Context, user *uuid.UUID, limit int) ([]review.Entry, error)
	Follow(ctx context.Context, follower uuid.UUID, target domain.SocialIdentity) error
	Unfollow(ctx context.Context, follower uuid.UUID, target domain.SocialIdentity) error
	AcceptFollower(ctx context.Context, owner uuid.UUID, follower domain.SocialIdentity) error
	Block(ctx context.Context, blocker uuid.UUID, target domain.SocialIdentity) error
	Following(ctx context.Context, user uuid.UUID) ([]domain.Actor, error)
	Followers(ctx context.Context, user uuid.UUID, pending bool) ([]domain.Actor, error)
}

// tmdbMovie is a movie with an external id.
func tmdbMovie(n int) domain.Movie {
	ext := fmt.Sprintf("tmdb:%d", n)
	return domain.Movie{ExternalID: &ext, Title: fmt.Sprintf("Movie %d", n), ReleaseYear: 1990 + n, Genres: []string{"Drama"}}
}

// newReview is a review by u rated rating, watched day days after t0.
func newReview(u uuid.UUID, rating, day int) domain.Review {
	watched := t0.AddDate(0, 0, day)
	return domain.Review{ID: uuid.New(), UserID: u, Rating: rating, WatchedAt: watched, CreatedAt: t0.Add(time.Duration(day) * time.Second),
		UpdatedAt: t0.Add(time.Duration(day) * time.Second)}
}

// reviewLogger is a store that logs reviews.
type reviewLogger interface {
	LogReview(ctx context.Context, r domain.Review, m domain.Movie, idem *review.Idempotency) (review.Logged, error)
}

// logReview stores a review of m and returns it.
func logReview(t *testing.T, s reviewLogger, r domain.Review, m domain.Movie) review.Logged {
	t.Helper()
	got, err := s.LogReview(context.Background(), r, m, nil)
	must(t, err)
	return got
}

var page100 = domain.Page{Limit: 100}

// ids are the review ids of entries, in order.
func ids(entries []review.Entry) []uuid.UUID {
	out := make([]uuid.UUID, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Review.ID)
	}
	return out
}

// tester wraps a test for helpers that take a read's two results whole: c.total(s.Feed(…)).
type tester struct{ *testing.T }

// total is a paged read's total; it fails the test on the read's error.
func (c tester) total(p domain.Paged[review.Entry], err error) int {
	c.Helper()
	must(c.T, err)
	return p.Total
}

// RunReviews runs the diary cases against stores open makes.
func RunReviews(t *testing.T, open func(t *testing.T, faults *Faults) Reviews) {
	ctx := context.Background()
	keep := func(domain.Review) error { return nil }

	t.Run("PreciseRatingAndRewatch", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice := createUser(t, s, "alice")
		half := newReview(alice.ID, 5, 1)
		half.RatingPrecise, half.Rewatch = ptr(4.5), true
		logReview(t, s, half, tmdbMovie(1))
		whole := logReview(t, s, newReview(alice.ID, 5, 2), tmdbMovie(1)).Review
		read := func(id uuid.UUID) domain.Review {
			t.Helper()
			e, err := s.ReviewEntry(ctx, id)
			must(t, err)
			return e.Review
		}
		if r := read(half.ID); r.Rating != 5 || r.RatingPrecise == nil || *r.RatingPrecise != 4.5 || !r.Rewatch {
			t.Fatalf("4.5 stars, a rewatch: rating %d, precise %v, rewatch %v", r.Rating, r.RatingPrecise, r.Rewatch)
		}
		if r := read(whole.ID); r.RatingPrecise != nil || r.Rewatch {
			t.Fatalf("5 stars: precise %v, rewatch %v; want none, false", r.RatingPrecise, r.Rewatch)
		}
		batch, _, err := s.DiaryExportBatch(ctx, alice.ID, nil, 10)
		must(t, err)
		if len(batch) != 2 || batch[0].Review.ID != half.ID || *batch[0].Review.RatingPrecise != 4.5 || !batch[0].Review.Rewatch {
			t.Fatalf("export batch %+v", batch)
		}
		// An edit of the comment keeps them; a new rating drops the precise value it no longer rounds to.
		_, err = s.UpdateReview(ctx, half.ID, func(r *domain.Review) error { r.Comment = ptr("again"); return nil })
		must(t, err)
		if r := read(half.ID); r.RatingPrecise == nil || *r.RatingPrecise != 4.5 || !r.Rewatch {
			t.Fatalf("after a comment edit: precise %v, rewatch %v", r.RatingPrecise, r.Rewatch)
		}
		_, err = s.UpdateReview(ctx, half.ID, func(r *domain.Review) error { r.Rating = 3; return nil })
		must(t, err)
		if r := read(half.ID); r.Rating != 3 || r.RatingPrecise != nil || !r.Rewatch {
			t.Fatalf("after a new rating: rating %d, precise %v, rewatch %v", r.Rating, r.RatingPrecise, r.Rewatch)
		}
	})

	t.Run("LogReadAndEvents", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice := createUser(t, s, "alice")
		comment, medium := "great", domain.WatchMedium("cinema")
		r := newReview(alice.ID, 4, 1)
		r.Comment, r.WatchMedium = &comment, &medium
		first := logReview(t, s, r, tmdbMovie(1))
		if n := events(t, s); n != 3 {
			t.Fatalf("%d events after a review of a new movie, want 3 (discovered, enrichment, logged)", n)
		}
		second := logReview(t, s, newReview(alice.ID, 2, 2), tmdbMovie(1))
		if second.Movie.ID != first.Movie.ID || events(t, s) != 4 {
			t.Fatalf("a second review of the movie: movie %v (first %v), %d events", second.Movie.ID, first.Movie.ID, events(t, s))
		}
		e, err := s.ReviewEntry(ctx, r.ID)
		must(t, err)
		if e.UserDisplayName != "alice" || e.Movie.Title != "Movie 1" || e.Movie.ReleaseYear != 1991 ||
			!slices.Equal(e.Movie.Genres, []string{"Drama"}) || e.Review.Rating != 4 || *e.Review.Comment != "great" ||
			*e.Review.WatchMedium != medium || !e.Review.WatchedAt.Equal(r.WatchedAt) || !e.Review.CreatedAt.Equal(r.CreatedAt) ||
			e.Review.RemoteActorURL != nil {
			t.Fatalf("entry %+v", e)
		}
		m, err := s.MovieByExternalID(ctx, "tmdb:1")
		must(t, err)
		if m.ID != first.Movie.ID {
			t.Fatalf("movie by external id %v, want %v", m.ID, first.Movie.ID)
		}
		hist, err := s.History(ctx, m.ID)
		must(t, err)
		if len(hist) != 2 || hist[0].ID != r.ID {
			t.Fatalf("history %v, want the first viewing first", hist)
		}
		// A movie typed in by hand is matched on title (without case) and year.
		manual := domain.Movie{Title: "Hand Made", ReleaseYear: 2001}
		h1 := logReview(t, s, newReview(alice.ID, 3, 3), manual)
		manual.Title = "HAND MADE"
		h2 := logReview(t, s, newReview(alice.ID, 3, 4), manual)
		if h1.Movie.ID != h2.Movie.ID {
			t.Fatal("a hand-typed movie was stored twice")
		}
	})

	t.Run("Idempotency", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice := createUser(t, s, "alice")
		idem := &review.Idempotency{Key: "k1", RequestHash: "h1"}
		r := newReview(alice.ID, 4, 1)
		first, err := s.LogReview(ctx, r, tmdbMovie(1), idem)
		must(t, err)
		before := events(t, s)
		again, err := s.LogReview(ctx, newReview(alice.ID, 4, 1), tmdbMovie(1), idem)
		must(t, err)
		if !again.Replayed || again.Review.ID != first.Review.ID || again.Movie.ID != first.Movie.ID || events(t, s) != before {
			t.Fatalf("replay %+v, %d events (before %d)", again, events(t, s), before)
		}
		_, err = s.LogReview(ctx, newReview(alice.ID, 5, 1), tmdbMovie(1), &review.Idempotency{Key: "k1", RequestHash: "other"})
		wantKind(t, err, domain.KindConflict, "")
		must(t, s.DeleteReview(ctx, r.ID, keep))
		_, err = s.LogReview(ctx, newReview(alice.ID, 4, 1), tmdbMovie(1), idem)
		wantKind(t, err, domain.KindConflict, "")
	})

	t.Run("AtomicWrites", func(t *testing.T) {
		t.Parallel()
		faults := &Faults{}
		s := open(t, faults)
		alice := createUser(t, s, "alice")
		kept := logReview(t, s, newReview(alice.ID, 3, 1), tmdbMovie(1))
		before := events(t, s)
		faults.Set(true)
		r := newReview(alice.ID, 5, 2)
		_, logErr := s.LogReview(ctx, r, tmdbMovie(2), nil)
		_, editErr := s.UpdateReview(ctx, kept.Review.ID, func(r *domain.Review) error { r.Rating = 1; return nil })
		deleteErr := s.DeleteReview(ctx, kept.Review.ID, keep)
		faults.Set(false)
		for name, err := range map[string]error{"log": logErr, "edit": editErr, "delete": deleteErr} {
			if !errors.Is(err, ErrInjected) {
				t.Errorf("%s with a failing enqueue: %v", name, err)
			}
		}
		if _, err := s.ReviewEntry(ctx, r.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("the review of the failed log: %v", err)
		}
		if _, err := s.MovieByExternalID(ctx, "tmdb:2"); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("the movie of the failed log: %v", err)
		}
		e, err := s.ReviewEntry(ctx, kept.Review.ID)
		must(t, err)
		if e.Review.Rating != 3 {
			t.Errorf("rating %d after a failed edit, want 3", e.Review.Rating)
		}
		if _, err := s.MovieByID(ctx, kept.Movie.ID); err != nil {
			t.Errorf("the movie of a failed delete: %v", err)
		}
		if n := (tester{t}).total(s.Feed(ctx, review.SortDateDesc, page100)); n != 1 {
			t.Errorf("feed total %d after the failed writes, want 1", n)
		}
		if n := events(t, s); n != before {
			t.Errorf("%d events after the failed writes, want %d", n, before)
		}
	})

	t.Run("NotFound", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		_, err := s.UpdateReview(ctx, uuid.New(), func(*domain.Review) error { return nil })
		wantKind(t, err, domain.KindNotFound, "Entity not found: review")
		wantKind(t, s.DeleteReview(ctx, uuid.New(), keep), domain.KindNotFound, "")
		_, err = s.ReviewEntry(ctx, uuid.New())
		wantKind(t, err, domain.KindNotFound, "")
		_, err = s.MovieByID(ctx, uuid.New())
		wantKind(t, err, domain.KindNotFound, "Entity not found: movie")
		_, err = s.MovieByExternalID(ctx, "tmdb:404")
		wantKind(t, err, domain.KindNotFound, "")
		// A check's veto is returned as it is and deletes nothing.
		alice := createUser(t, s, "alice")
		r := logReview(t, s, newReview(alice.ID, 3, 1), tmdbMovie(1))
		err = s.DeleteReview(ctx, r.Review.ID, func(domain.Review) error { return domain.Forbidden("not yours") })
		wantKind(t, err, domain.KindForbidden, "not yours")
		if _, err := s.ReviewEntry(ctx, r.Review.ID); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("CountsAfterLogEditDelete", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice, bob := createUser(t, s, "alice"), createUser(t, s, "bob")
		var aliceReviews []review.Logged
		for i := range 3 {
			aliceReviews = append(aliceReviews, logReview(t, s, newReview(alice.ID, i+1, i), tmdbMovie(i)))
		}
		bobs := logReview(t, s, newReview(bob.ID, 5, 10), tmdbMovie(0))
		check := func(wantAll, wantAlice, wantBob, wantMovie0 int) {
			t.Helper()
			if n := (tester{t}).total(s.Feed(ctx, review.SortDateDesc, page100)); n != wantAll {
				t.Errorf("feed total %d, want %d", n, wantAll)
			}
			if n := (tester{t}).total(s.Diary(ctx, review.DiaryFilter{}, page100)); n != wantAll {
				t.Errorf("local diary total %d, want %d", n, wantAll)
			}
			for u, want := range map[uuid.UUID]int{alice.ID: wantAlice, bob.ID: wantBob} {
				p, err := s.Diary(ctx, review.DiaryFilter{UserID: &u}, page100)
				if n := (tester{t}).total(p, err); n != want || len(p.Items) != want {
					t.Errorf("user diary total %d with %d items, want %d", n, len(p.Items), want)
				}
				st, err := s.UserStats(ctx, u)
				must(t, err)
				if st.TotalMovies != want {
					t.Errorf("user stats total %d, want %d", st.TotalMovies, want)
				}
			}
			m0 := aliceReviews[0].Movie.ID
			if n := (tester{t}).total(s.Diary(ctx, review.DiaryFilter{UserID: &alice.ID, MovieID: &m0}, page100)); n != min(wantMovie0, wantAlice, 1) {
				t.Errorf("alice's diary of movie 0: %d", n)
			}
		}
		check(4, 3, 1, 2)
		// An edit moves nothing between counts.
		_, err := s.UpdateReview(ctx, aliceReviews[1].Review.ID, func(r *domain.Review) error {
			r.Rating, r.WatchedAt = 5, r.WatchedAt.AddDate(0, 0, 30)
			return nil
		})
		must(t, err)
		check(4, 3, 1, 2)
		// Deleting a movie's last review deletes the movie, with MovieDeleted.
		before := events(t, s)
		must(t, s.DeleteReview(ctx, aliceReviews[2].Review.ID, keep))
		check(3, 2, 1, 2)
		if n := events(t, s); n != before+2 {
			t.Errorf("%d events after deleting a movie's last review, want %d", n, before+2)
		}
		if _, err := s.MovieByID(ctx, aliceReviews[2].Movie.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("the orphan movie: %v", err)
		}
		// A movie another review still refers to stays.
		must(t, s.DeleteReview(ctx, bobs.Review.ID, keep))
		check(2, 2, 0, 1)
		if _, err := s.MovieByID(ctx, bobs.Movie.ID); err != nil {
			t.Errorf("a movie still reviewed: %v", err)
		}
	})

	t.Run("PagesInOrder", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice := createUser(t, s, "alice")
		// Days 0..6, ratings 1,2,3,4,5,1,2: ties on rating are broken by date.
		var byDate []uuid.UUID
		for day := range 7 {
			r := logReview(t, s, newReview(alice.ID, day%5+1, day), tmdbMovie(day))
			byDate = append(byDate, r.Review.ID)
		}
		desc := slices.Clone(byDate)
		slices.Reverse(desc)
		byRatingDesc := []uuid.UUID{byDate[4], byDate[3], byDate[2], byDate[6], byDate[1], byDate[5], byDate[0]}
		byRatingAsc := []uuid.UUID{byDate[5], byDate[0], byDate[6], byDate[1], byDate[2], byDate[3], byDate[4]}
		for _, c := range []struct {
			sort review.Sort
			want []uuid.UUID
		}{{review.SortDateDesc, desc}, {review.SortDateAsc, byDate}, {review.SortRatingDesc, byRatingDesc}, {review.SortRatingAsc, byRatingAsc}} {
			var got []uuid.UUID
			for offset := 0; offset < 7; offset += 3 {
				p, err := s.Diary(ctx, review.DiaryFilter{UserID: &alice.ID, Sort: c.sort}, domain.Page{Limit: 3, Offset: offset})
				must(t, err)
				if p.Total != 7 {
					t.Fatalf("sort %v: total %d", c.sort, p.Total)
				}
				got = append(got, ids(p.Items)...)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("sort %v: pages give %v, want %v", c.sort, got, c.want)
			}
			feed, err := s.Feed(ctx, c.sort, domain.Page{Limit: 4, Offset: 2})
			must(t, err)
			if !slices.Equal(ids(feed.Items), c.want[2:6]) {
				t.Errorf("feed sort %v: %v, want %v", c.sort, ids(feed.Items), c.want[2:6])
			}
		}
		// Past the end: the total, no items.
		p, err := s.Feed(ctx, review.SortDateDesc, domain.Page{Limit: 5, Offset: 10})
		must(t, err)
		if p.Total != 7 || len(p.Items) != 0 {
			t.Fatalf("page past the end: total %d, %d items", p.Total, len(p.Items))
		}
		// The export walks every review in batches, oldest first; recent reviews are by creation.
		var exported []uuid.UUID
		var after *review.ExportCursor
		for range 10 {
			batch, next, err := s.DiaryExportBatch(ctx, alice.ID, after, 3)
			must(t, err)
			if next == nil {
				break
			}
			exported, after = append(exported, ids(batch)...), next
		}
		if !slices.Equal(exported, byDate) {
			t.Errorf("export %v, want %v", exported, byDate)
		}
		recent, err := s.RecentReviews(ctx, &alice.ID, 2)
		must(t, err)
		if !slices.Equal(ids(recent), desc[:2]) {
			t.Errorf("recent %v, want %v", ids(recent), desc[:2])
		}
	})

	t.Run("ConcurrentWrites", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		const n = 8
		users := make([]domain.User, n)
		for i := range n {
			users[i] = createUser(t, s, fmt.Sprintf("user%d", i))
		}
		// Everyone logs the same new movie at once: one movie, every review, exact counts.
		errs := make([]error, n)
		logged := make([]review.Logged, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				logged[i], errs[i] = s.LogReview(ctx, newReview(users[i].ID, 3, i), tmdbMovie(1), nil)
			})
		}
		close(start)
		wg.Wait()
		for i := range n {
			must(t, errs[i])
			if logged[i].Movie.ID != logged[0].Movie.ID {
				t.Fatalf("one new movie logged at once was stored as %v and %v", logged[0].Movie.ID, logged[i].Movie.ID)
			}
		}
		if got := (tester{t}).total(s.Feed(ctx, review.SortDateDesc, page100)); got != n {
			t.Fatalf("feed total %d, want %d", got, n)
		}
		if got := events(t, s); got != n+2 {
			t.Fatalf("%d events, want %d (the movie's two and a ReviewLogged each)", got, n+2)
		}

		// One idempotency key sent at once: one review, the others replay it.
		idem := &review.Idempotency{Key: "same", RequestHash: "h"}
		start = make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				logged[i], errs[i] = s.LogReview(ctx, newReview(users[0].ID, 4, 20), tmdbMovie(2), idem)
			})
		}
		close(start)
		wg.Wait()
		replayed := 0
		for i := range n {
			must(t, errs[i])
			if logged[i].Review.ID != logged[0].Review.ID {
				t.Fatalf("one idempotency key stored reviews %v and %v", logged[0].Review.ID, logged[i].Review.ID)
			}
			if logged[i].Replayed {
				replayed++
			}
		}
		if replayed != n-1 {
			t.Fatalf("%d of %d requests with one key replayed, want %d", replayed, n, n-1)
		}

		// A movie's last review deleted while another review of it is logged: the new review
		// keeps a movie, whichever goes first.
		for i := range 10 {
			old := logReview(t, s, newReview(users[1].ID, 2, 30+i), tmdbMovie(100+i))
			next := newReview(users[2].ID, 5, 30+i)
			var deleteErr, logErr error
			start = make(chan struct{})
			wg.Go(func() { <-start; deleteErr = s.DeleteReview(ctx, old.Review.ID, keep) })
			wg.Go(func() { <-start; _, logErr = s.LogReview(ctx, next, tmdbMovie(100+i), nil) })
			close(start)
			wg.Wait()
			must(t, deleteErr)
			must(t, logErr)
			e, err := s.ReviewEntry(ctx, next.ID)
			must(t, err)
			if _, err := s.MovieByID(ctx, e.Movie.ID); err != nil {
				t.Fatalf("round %d: the movie of a review logged beside a delete: %v", i, err)
			}
		}
	})

	t.Run("FollowingFeed", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice, bob, carol := createUser(t, s, "alice"), createUser(t, s, "bob"), createUser(t, s, "carol")
		b1 := logReview(t, s, newReview(bob.ID, 3, 1), tmdbMovie(1))
		b2 := logReview(t, s, newReview(bob.ID, 4, 3), tmdbMovie(2))
		logReview(t, s, newReview(carol.ID, 5, 2), tmdbMovie(3))
		feed := func() domain.Paged[review.Entry] {
			t.Helper()
			p, err := s.FollowingFeed(ctx, alice.ID, page100)
			must(t, err)
			if len(p.Items) != p.Total {
				t.Fatalf("following feed: %d items, total %d", len(p.Items), p.Total)
			}
			return p
		}
		must(t, s.Follow(ctx, alice.ID, domain.LocalIdentity(bob.ID)))
		if n := feed().Total; n != 0 {
			t.Fatalf("a pending follow feeds %d reviews", n)
		}
		pending, err := s.Followers(ctx, bob.ID, true)
		must(t, err)
		if len(pending) != 1 || pending[0].Username != "alice" {
			t.Fatalf("pending followers %+v", pending)
		}
		must(t, s.AcceptFollower(ctx, bob.ID, domain.LocalIdentity(alice.ID)))
		wantKind(t, s.AcceptFollower(ctx, bob.ID, domain.LocalIdentity(alice.ID)), domain.KindNotFound, "")
		if got := ids(feed().Items); !slices.Equal(got, []uuid.UUID{b2.Review.ID, b1.Review.ID}) {
			t.Fatalf("feed after the accept %v", got)
		}
		following, err := s.Following(ctx, alice.ID)
		must(t, err)
		if len(following) != 1 || following[0].Identity != domain.LocalIdentity(bob.ID) {
			t.Fatalf("following %+v", following)
		}
		// A new review arrives, an edit of the date moves it, a deletion takes it away.
		b3 := logReview(t, s, newReview(bob.ID, 2, 5), tmdbMovie(4))
		_, err = s.UpdateReview(ctx, b1.Review.ID, func(r *domain.Review) error { r.WatchedAt = t0.AddDate(0, 0, 9); return nil })
		must(t, err)
		if got := ids(feed().Items); !slices.Equal(got, []uuid.UUID{b1.Review.ID, b3.Review.ID, b2.Review.ID}) {
			t.Fatalf("feed after a new review and an edit %v", got)
		}
		p, err := s.FollowingFeed(ctx, alice.ID, domain.Page{Limit: 1, Offset: 1})
		must(t, err)
		if p.Total != 3 || !slices.Equal(ids(p.Items), []uuid.UUID{b3.Review.ID}) {
			t.Fatalf("second page of one: total %d, %v", p.Total, ids(p.Items))
		}
		must(t, s.DeleteReview(ctx, b2.Review.ID, keep))
		if n := feed().Total; n != 2 {
			t.Fatalf("feed total %d after a deletion, want 2", n)
		}
		// The follow ends: the feed empties; a block ends it too.
		must(t, s.Unfollow(ctx, alice.ID, domain.LocalIdentity(bob.ID)))
		if n := feed().Total; n != 0 {
			t.Fatalf("feed total %d after unfollowing, want 0", n)
		}
		must(t, s.Follow(ctx, alice.ID, domain.LocalIdentity(bob.ID)))
		must(t, s.AcceptFollower(ctx, bob.ID, domain.LocalIdentity(alice.ID)))
		if n := feed().Total; n != 2 {
			t.Fatalf("feed total %d after following again, want 2", n)
		}
		must(t, s.Block(ctx, bob.ID, domain.LocalIdentity(alice.ID)))
		if n := feed().Total; n != 0 {
			t.Fatalf("feed total %d after a block, want 0", n)
		}
		wantKind(t, s.Follow(ctx, alice.ID, domain.LocalIdentity(bob.ID)), domain.KindForbidden, "")
	})
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }
