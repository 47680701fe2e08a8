package sqlite

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

func newUser(t *testing.T, s *Store, name string) uuid.UUID {
	t.Helper()
	u, err := s.CreateUser(context.Background(), domain.User{ID: uuid.New(), Username: name, Email: name + "@example.test",
		PasswordHash: "x", CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

func externalMovie(ext, title string) domain.Movie {
	return domain.Movie{ID: domain.MovieIDFor(ext), ExternalID: &ext, Title: title, ReleaseYear: 1999}
}

// movieDeletions returns the MovieDeleted events in the outbox.
func movieDeletions(t *testing.T, s *Store) []domain.MovieDeleted {
	t.Helper()
	var out []domain.MovieDeleted
	for _, e := range outboxEvents(t, s) {
		if d, ok := e.(domain.MovieDeleted); ok {
			out = append(out, d)
		}
	}
	return out
}

// TestRemoveFromWatchlistDeletesAnOrphanMovie: removing the last watchlist entry of a movie no
// review refers to deletes the movie with MovieDeleted (carrying its poster key) in the same
// transaction as the removal (a failing MovieDeleted keeps the entry too); a movie still on another watchlist or reviewed is kept and
// emits nothing. That is the orphan rule DeleteReview follows: a movie no review and no
// watchlist entry refers to.
func TestRemoveFromWatchlistDeletesAnOrphanMovie(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	outbox := newFaultyOutbox()
	s := newStore(t, outbox.option())
	alice, bob := newUser(t, s, "alice"), newUser(t, s, "bob")
	add := func(user uuid.UUID, m domain.Movie) {
		t.Helper()
		if _, err := s.AddToWatchlist(ctx, user, m, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(m domain.Movie) bool {
		t.Helper()
		_, err := s.MovieByID(ctx, m.ID)
		if err != nil && domain.KindOf(err) != domain.KindNotFound {
			t.Fatal(err)
		}
		return err == nil
	}

	t.Run("orphan", func(t *testing.T) {
		m := externalMovie("tt0133093", "The Matrix")
		add(alice, m)
		key := "posters/" + m.ID.String() + ".jpg"
		if _, err := s.SetPoster(ctx, m.ID, key); err != nil {
			t.Fatal(err)
		}
		if err := s.RemoveFromWatchlist(ctx, alice, m.ID); err != nil {
			t.Fatal(err)
		}
		if exists(m) {
			t.Error("the movie nobody refers to any more was kept")
		}
		events := outboxEvents(t, s)
		n := len(events)
		if n < 2 || !equalEvents(events[n-2:], []domain.Event{
			domain.WatchlistEntryRemoved{UserID: alice, MovieID: m.ID},
			domain.MovieDeleted{MovieID: m.ID, PosterPath: &key},
		}) {
			t.Errorf("outbox ends with %v, want WatchlistEntryRemoved then MovieDeleted with the poster key", events)
		}
	})

	t.Run("same transaction", func(t *testing.T) {
		m := externalMovie("tt0120737", "The Fellowship of the Ring")
		add(alice, m)
		before := len(outboxEvents(t, s))
		outbox.fail("MovieDeleted")
		err := s.RemoveFromWatchlist(ctx, alice, m.ID)
		outbox.fail("")
		if !errors.Is(err, errOutboxDown) {
			t.Fatalf("remove with a failing outbox: %v, want the enqueue's error", err)
		}
		if !exists(m) {
			t.Error("the movie was deleted although its MovieDeleted failed")
		}
		if on, err := s.OnWatchlist(ctx, alice, m.ID); err != nil || !on {
			t.Errorf("entry after the failed removal: on=%v (%v), want still there", on, err)
		}
		if after := len(outboxEvents(t, s)); after != before {
			t.Errorf("the failed removal left %d events", after-before)
		}
	})

	t.Run("on another watchlist", func(t *testing.T) {
		m := externalMovie("tt0167261", "The Two Towers")
		add(alice, m)
		add(bob, m)
		before := len(movieDeletions(t, s))
		if err := s.RemoveFromWatchlist(ctx, alice, m.ID); err != nil {
			t.Fatal(err)
		}
		if !exists(m) {
			t.Error("a movie still on bob's watchlist was deleted")
		}
		if on, err := s.OnWatchlist(ctx, bob, m.ID); err != nil || !on {
			t.Errorf("bob's entry: on=%v (%v), want kept", on, err)
		}
		if d := movieDeletions(t, s); len(d) != before {
			t.Errorf("MovieDeleted emitted for a movie still referenced: %v", d[before:])
		}
	})

	t.Run("reviewed", func(t *testing.T) {
		m := externalMovie("tt0167260", "The Return of the King")
		add(alice, m)
		r := domain.Review{ID: uuid.New(), UserID: bob, Rating: 4, WatchedAt: time.Now(), CreatedAt: time.Now(), UpdatedAt: time.Now()}
		if _, err := s.LogReview(ctx, r, m, nil); err != nil {
			t.Fatal(err)
		}
		before := len(movieDeletions(t, s))
		if err := s.RemoveFromWatchlist(ctx, alice, m.ID); err != nil {
			t.Fatal(err)
		}
		if !exists(m) {
			t.Error("a reviewed movie was deleted")
		}
		if d := movieDeletions(t, s); len(d) != before {
			t.Errorf("MovieDeleted emitted for a reviewed movie: %v", d[before:])
		}
	})
}
