package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// TestEnqueueEventWithIDIsIdempotent: an event with a writer-chosen id keeps that id, and
// enqueuing the same id again (a replayed fan-out) inserts nothing, in the same or a later
// transaction.
func TestEnqueueEventWithIDIsIdempotent(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	id := uuid.MustParse("5e0f7a1c-1111-5222-8333-444455556666")
	d := outbox.EventWithID{ID: id, Event: domain.FederationDeliveryRequested{InboxURL: "https://r.example/inbox",
		ActivityJSON: []byte(`{"id":"x","type":"Create"}`), SigningActorID: uuid.New()}}
	for range 2 {
		if err := s.writeAlone(ctx, func(tx *sqlx.Tx) error { return outbox.Insert(ctx, tx, s.now(), d, d, domain.SearchReindexRequested{}) }); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := s.read.QueryRow(`SELECT count(*) FROM event_queue WHERE event_id = ?`, id.String()).Scan(&n); err != nil || n != 1 {
		t.Errorf("%d rows with the chosen id (%v), want 1", n, err)
	}
	if err := s.read.QueryRow(`SELECT count(*) FROM event_queue`).Scan(&n); err != nil || n != 3 {
		t.Errorf("%d rows in all (%v), want 3: one delivery, two minted-id events", n, err)
	}
	var typ string
	if err := s.read.QueryRow(`SELECT event_type FROM event_queue WHERE event_id = ?`, id.String()).Scan(&typ); err != nil ||
		typ != "FederationDeliveryRequested" {
		t.Errorf("event_type %q (%v)", typ, err)
	}
}

// TestRemoteReviewsWithoutLocalUser: after migration 0021 a remote review needs no local user,
// a local review still does, and deleting a user deletes their reviews but no remote one.
func TestRemoteReviewsWithoutLocalUser(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	u, err := s.CreateUser(ctx, domain.User{ID: uuid.New(), Username: "alice", Email: "a@example.test", PasswordHash: "x",
		CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	ext := "tt0133093"
	m := domain.Movie{ID: domain.MovieIDFor(ext), ExternalID: &ext, Title: "The Matrix", ReleaseYear: 1999}
	remote := domain.RemoteReview{ID: uuid.New(), APID: "https://r.example/reviews/1", ActorURL: "https://r.example/users/bob",
		UserID: uuid.New(), Movie: m, Rating: 4, WatchedAt: time.Now(), Published: time.Now()}
	if err := s.SaveRemoteReview(ctx, remote); err != nil {
		t.Fatalf("remote review refused: %v", err)
	}
	orphan := domain.Review{ID: uuid.New(), UserID: uuid.New(), Rating: 3, WatchedAt: time.Now(), CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if _, err := s.LogReview(ctx, orphan, m, nil); err == nil {
		t.Error("a local review of an unknown user was stored")
	}
	local := domain.Review{ID: uuid.New(), UserID: u.ID, Rating: 5, WatchedAt: time.Now(), CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if _, err := s.LogReview(ctx, local, m, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.writeAlone(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.Exec(`DELETE FROM users WHERE id = ?`, u.ID.String())
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var left []string
	err = s.read.Select(&left, `SELECT COALESCE(remote_actor_url, 'local') FROM reviews`)
	if err != nil || len(left) != 1 || left[0] != remote.ActorURL {
		t.Errorf("reviews left after deleting the user: %v (%v), want only the remote one", left, err)
	}
}

// TestActorProfileShowsTheEditedProfile: what a user sets on their profile (name, bio, avatar,
// banner, alias, fields) is what the actor document reads.
func TestActorProfileShowsTheEditedProfile(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	id := newUser(t, s, "profiled")
	want := domain.Profile{DisplayName: "Pro Filed", Bio: "likes films", AvatarKey: "avatars/a.webp",
		BannerKey: "banners/b.webp", AlsoKnownAs: "https://other.example/users/p",
		Fields: []domain.ProfileField{{Name: "site", Value: "https://p.example"}}}
	if err := s.UpdateProfile(ctx, id, func(p *domain.Profile) ([]domain.Event, error) {
		*p = want
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	got, err := s.ActorProfile(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.DisplayName != want.DisplayName || got.Bio != want.Bio || got.AvatarKey != want.AvatarKey ||
		got.BannerKey != want.BannerKey || len(got.AlsoKnownAs) != 1 || got.AlsoKnownAs[0] != want.AlsoKnownAs ||
		len(got.Fields) != 1 || got.Fields[0] != want.Fields[0] {
		t.Fatalf("actor profile = %+v, want the edited profile %+v", got, want)
	}
}

// TestQuietReviewIsReadQuietAndDeletedQuietly: federation's read of a quiet review (imported
// without federate: true) says so, and its deletion's ReviewDeleted carries the flag, the row
// being gone when federation handles it; a federated review's does not.
func TestQuietReviewIsReadQuietAndDeletedQuietly(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	u := newUser(t, s, "alice")
	ext := "tt0133093"
	m := domain.Movie{ID: domain.MovieIDFor(ext), ExternalID: &ext, Title: "The Matrix", ReleaseYear: 1999}
	quiet := domain.Review{ID: uuid.New(), UserID: u, Rating: 5, WatchedAt: time.Now(), CreatedAt: time.Now(), UpdatedAt: time.Now()}
	loud := domain.Review{ID: uuid.New(), UserID: u, Rating: 4, WatchedAt: time.Now().Add(-48 * time.Hour), CreatedAt: time.Now(),
		UpdatedAt: time.Now()}
	for _, r := range []domain.Review{quiet, loud} {
		if _, err := s.LogReview(ctx, r, m, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.write.Exec(`UPDATE reviews SET quiet = 1 WHERE id = ?`, quiet.ID.String()); err != nil { // as an import writes it
		t.Fatal(err)
	}
	for _, c := range []struct {
		r    domain.Review
		want bool
	}{{quiet, true}, {loud, false}} {
		got, _, err := s.FederatedReview(ctx, c.r.ID)
		if err != nil || got.Quiet != c.want {
			t.Errorf("FederatedReview(%s): quiet %v (%v), want %v", c.r.ID, got.Quiet, err, c.want)
		}
		if err := s.DeleteReview(ctx, c.r.ID, func(domain.Review) error { return nil }); err != nil {
			t.Fatal(err)
		}
		var payload []byte
		if err := s.read.Get(&payload, `SELECT payload FROM event_queue WHERE event_type = 'ReviewDeleted' ORDER BY id DESC LIMIT 1`); err != nil {
			t.Fatal(err)
		}
		e, err := domain.Decode("ReviewDeleted", payload)
		if err != nil {
			t.Fatal(err)
		}
		if d := e.(domain.ReviewDeleted); d.ReviewID != c.r.ID || d.Quiet != c.want {
			t.Errorf("ReviewDeleted %+v, want review %s quiet %v", d, c.r.ID, c.want)
		}
	}
}
