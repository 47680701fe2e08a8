package sqlite

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

func remoteReviewOf(ext string) domain.RemoteReview {
	m := domain.Movie{ID: domain.MovieIDFor(ext), ExternalID: &ext, Title: "Stalker", ReleaseYear: 1979}
	actor := "https://r.example/users/bob"
	return domain.RemoteReview{ID: uuid.New(), APID: "https://r.example/reviews/" + ext, ActorURL: actor,
		UserID: uuid.NewSHA1(uuid.NameSpaceURL, []byte(actor)), Movie: m, Rating: 5,
		WatchedAt: time.Now().UTC().Truncate(time.Millisecond), Published: time.Now().UTC().Truncate(time.Millisecond)}
}

// TestSaveRemoteReviewCommitsWithItsEvents: a remote review of a new movie stores the review,
// the movie and the movie's events in one transaction. With the enqueue failing, the save fails
// and leaves neither the review nor the movie nor any event: enqueuing after the commit (or in
// a transaction of its own) would leave the review without its events.
func TestSaveRemoteReviewCommitsWithItsEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	outbox := newFaultyOutbox()
	s := newStore(t, outbox.option())

	outbox.fail("MovieDiscovered")
	lost := remoteReviewOf("tt0079944")
	if err := s.SaveRemoteReview(ctx, lost); !errors.Is(err, errOutboxDown) {
		t.Fatalf("save with a failing outbox: %v, want the enqueue's error", err)
	}
	if n := count(t, s, `SELECT count(*) FROM reviews`); n != 0 {
		t.Errorf("%d reviews stored although their events failed, want 0", n)
	}
	if n := count(t, s, `SELECT count(*) FROM movies`); n != 0 {
		t.Errorf("%d movies stored although their events failed, want 0", n)
	}
	if events := outboxEvents(t, s); len(events) != 0 {
		t.Errorf("outbox after the failed save: %v, want nothing", events)
	}

	outbox.fail("")
	r := remoteReviewOf("tt0079944")
	if err := s.SaveRemoteReview(ctx, r); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, `SELECT count(*) FROM reviews WHERE id = ? AND remote_actor_url = ? AND ap_id = ?`,
		r.ID.String(), r.ActorURL, r.APID); n != 1 {
		t.Errorf("remote review stored %d times, want once", n)
	}
	ext := *r.Movie.ExternalID
	want := []domain.Event{
		domain.MovieDiscovered{MovieID: r.Movie.ID, ExternalMetadataID: ext},
		domain.MovieEnrichmentRequested{MovieID: r.Movie.ID, ExternalMetadataID: ext},
	}
	if got := outboxEvents(t, s); !equalEvents(got, want) {
		t.Errorf("outbox after the save: %v, want %v", got, want)
	}
}

func equalEvents(got, want []domain.Event) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g, err1 := domain.Encode(got[i])
		w, err2 := domain.Encode(want[i])
		if err1 != nil || err2 != nil || string(g) != string(w) {
			return false
		}
	}
	return true
}
