package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/integration"
	"moviesdiary/internal/usecase/review"
)

// WatchQueue is what RunWatchQueue needs of a store: the media-server watch queue and the
// reviews it logs.
type WatchQueue interface {
	Outbox
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	ReviewEntry(ctx context.Context, id uuid.UUID) (review.Entry, error)
	Feed(ctx context.Context, sort review.Sort, p domain.Page) (domain.Paged[review.Entry], error)
	SaveWatch(ctx context.Context, ev domain.WatchEvent, since time.Time, confirm *integration.Confirmed) (bool, error)
	WatchEvent(ctx context.Context, id uuid.UUID) (domain.WatchEvent, error)
	PendingWatches(ctx context.Context, userID uuid.UUID) ([]domain.WatchEvent, error)
	PendingWatchCount(ctx context.Context, userID uuid.UUID) (int, error)
	ConfirmWatches(ctx context.Context, userID uuid.UUID, at time.Time, cs []integration.Confirmed) error
	DismissWatches(ctx context.Context, userID uuid.UUID, ids []uuid.UUID, at time.Time) (int, error)
	PurgeWatchEvents(ctx context.Context, closedBefore, pendingBefore time.Time) (int64, error)
}

// watchOf is a pending watch of movie n by user, at.
func watchOf(user uuid.UUID, n int, at time.Time) domain.WatchEvent {
	m := tmdbMovie(n)
	return domain.WatchEvent{ID: uuid.New(), UserID: user, Source: domain.SourcePlex, Title: m.Title, Year: &m.ReleaseYear,
		ExternalID: m.ExternalID, Status: domain.WatchPending, WatchedAt: at}
}

// RunWatchQueue runs the watch queue cases against stores open makes.
func RunWatchQueue(t *testing.T, open func(t *testing.T, faults *Faults) WatchQueue) {
	ctx := context.Background()

	t.Run("SaveConfirmDismissPurge", func(t *testing.T) {
		t.Parallel()
		faults := &Faults{}
		s := open(t, faults)
		alice, bob := createUser(t, s, "alice"), createUser(t, s, "bob")
		w1, w2, w3 := watchOf(alice.ID, 1, t0), watchOf(alice.ID, 2, t0.Add(time.Minute)), watchOf(alice.ID, 3, t0.Add(2*time.Minute))
		for _, w := range []domain.WatchEvent{w1, w2, w3} {
			saved, err := s.SaveWatch(ctx, w, t0.Add(-time.Hour), nil)
			must(t, err)
			if !saved {
				t.Fatal("a new watch was not saved")
			}
		}
		// The same movie again within the window is a repeat.
		if saved, err := s.SaveWatch(ctx, watchOf(alice.ID, 1, t0.Add(time.Hour)), t0.Add(-time.Hour), nil); err != nil || saved {
			t.Fatalf("a repeated watch: saved %v, %v", saved, err)
		}
		if n := events(t, s); n != 3 {
			t.Fatalf("%d events after three watches, want 3", n)
		}
		pending, err := s.PendingWatches(ctx, alice.ID)
		must(t, err)
		if len(pending) != 3 || pending[0].ID != w1.ID || pending[2].ID != w3.ID || *pending[1].Year != *w2.Year {
			t.Fatalf("pending %+v", pending)
		}
		if n, err := s.PendingWatchCount(ctx, alice.ID); err != nil || n != 3 {
			t.Errorf("PendingWatchCount = %d, %v; want 3", n, err)
		}

		// Confirming logs the review with its events; a failing enqueue confirms nothing.
		confirm := integration.Confirmed{EventID: w1.ID, Review: newReview(alice.ID, 4, 1), Movie: tmdbMovie(1)}
		faults.Set(true)
		err = s.ConfirmWatches(ctx, alice.ID, t0.Add(time.Hour), []integration.Confirmed{confirm})
		faults.Set(false)
		if !errors.Is(err, ErrInjected) {
			t.Fatalf("confirm with a failing enqueue: %v", err)
		}
		if ev, err := s.WatchEvent(ctx, w1.ID); err != nil || ev.Status != domain.WatchPending {
			t.Fatalf("the watch of the failed confirmation: %+v %v", ev, err)
		}
		must(t, s.ConfirmWatches(ctx, alice.ID, t0.Add(time.Hour), []integration.Confirmed{confirm}))
		ev, err := s.WatchEvent(ctx, w1.ID)
		must(t, err)
		if ev.Status != domain.WatchConfirmed || *ev.ReviewID != confirm.Review.ID || ev.MovieID == nil ||
			!ev.ClosedAt.Equal(t0.Add(time.Hour)) {
			t.Fatalf("confirmed watch %+v", ev)
		}
		if _, err := s.ReviewEntry(ctx, confirm.Review.ID); err != nil {
			t.Fatalf("the confirmed watch's review: %v", err)
		}
		again := confirm
		again.Review = newReview(alice.ID, 2, 1)
		wantKind(t, s.ConfirmWatches(ctx, alice.ID, t0, []integration.Confirmed{again}), domain.KindConflict, "")
		wantKind(t, s.ConfirmWatches(ctx, bob.ID, t0, []integration.Confirmed{{EventID: w2.ID, Review: newReview(bob.ID, 2, 1),
			Movie: tmdbMovie(2)}}), domain.KindForbidden, "")

		// Dismissal: all the user's or nothing.
		_, err = s.DismissWatches(ctx, bob.ID, []uuid.UUID{w2.ID}, t0)
		wantKind(t, err, domain.KindForbidden, "")
		_, err = s.DismissWatches(ctx, alice.ID, []uuid.UUID{w2.ID, uuid.New()}, t0)
		wantKind(t, err, domain.KindNotFound, "")
		n, err := s.DismissWatches(ctx, alice.ID, []uuid.UUID{w1.ID, w2.ID}, t0.Add(2*time.Hour))
		must(t, err)
		if n != 1 {
			t.Fatalf("dismissed %d, want 1 (the confirmed one stays)", n)
		}
		pending, err = s.PendingWatches(ctx, alice.ID)
		must(t, err)
		if len(pending) != 1 || pending[0].ID != w3.ID {
			t.Fatalf("pending after the dismissal %+v", pending)
		}

		// The purge takes closed events closed before the first time, pending ones watched before
		// the second; the confirmed review stays.
		purged, err := s.PurgeWatchEvents(ctx, t0.Add(90*time.Minute), t0.Add(90*time.Second))
		must(t, err)
		if purged != 1 {
			t.Fatalf("purged %d, want 1 (the confirmed event)", purged)
		}
		purged, err = s.PurgeWatchEvents(ctx, t0.Add(3*time.Hour), t0.Add(3*time.Hour))
		must(t, err)
		if purged != 2 {
			t.Fatalf("purged %d, want 2", purged)
		}
		if _, err := s.ReviewEntry(ctx, confirm.Review.ID); err != nil {
			t.Fatalf("the review of a purged watch: %v", err)
		}
		_, err = s.WatchEvent(ctx, w1.ID)
		wantKind(t, err, domain.KindNotFound, "")
	})

	t.Run("ConcurrentConfirmsAndRepeats", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice := createUser(t, s, "alice")
		const n = 6
		// One watch reported n times at once is saved once.
		saved := make([]bool, n)
		errs := make([]error, n)
		begin := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-begin
				saved[i], errs[i] = s.SaveWatch(ctx, watchOf(alice.ID, 1, t0), t0.Add(-time.Hour), nil)
			})
		}
		close(begin)
		wg.Wait()
		count := 0
		for i := range n {
			must(t, errs[i])
			if saved[i] {
				count++
			}
		}
		if count != 1 {
			t.Fatalf("one watch reported %d times at once was saved %d times", n, count)
		}
		// One pending watch confirmed n times at once logs one review.
		pending, err := s.PendingWatches(ctx, alice.ID)
		must(t, err)
		begin = make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-begin
				errs[i] = s.ConfirmWatches(ctx, alice.ID, t0, []integration.Confirmed{{EventID: pending[0].ID,
					Review: newReview(alice.ID, 4, i), Movie: tmdbMovie(1)}})
			})
		}
		close(begin)
		wg.Wait()
		ok := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case domain.KindOf(err) != domain.KindConflict:
				t.Errorf("a losing confirmation: %v, want a conflict", err)
			}
		}
		if total := (tester{t}).total(s.Feed(ctx, review.SortDateDesc, page100)); ok != 1 || total != 1 {
			t.Fatalf("%d confirmations succeeded and %d reviews were logged, want 1 and 1", ok, total)
		}
	})
}
