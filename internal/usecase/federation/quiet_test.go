package federation_test

import (
	"context"
	"testing"

	"moviesdiary/internal/domain"
)

// TestQuietImportsAreNotAnnounced: a review or watchlist entry imported without federate: true
// (Quiet) publishes nothing to followers; the same event without Quiet does.
func TestQuietImportsAreNotAnnounced(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.addUser("alice")
	r := b.addReview(alice)
	b.store.followerInbox[alice.ID] = []string{"https://a.example/inbox"}
	ctx := context.Background()
	quiet := []domain.Event{
		domain.ReviewLogged{ReviewID: r.ID, UserID: alice.ID, Rating: 4, Quiet: true},
		domain.WatchlistEntryAdded{UserID: alice.ID, MovieID: r.MovieID, MovieTitle: "Heat", Quiet: true},
	}
	for i, e := range quiet {
		if err := b.svc.Outbound(ctx, "q"+string(rune('0'+i)), e); err != nil {
			t.Fatal(err)
		}
	}
	if len(b.store.published) != 0 {
		t.Fatalf("quiet imports published %d activities", len(b.store.published))
	}
	if err := b.svc.Outbound(ctx, "loud", domain.ReviewLogged{ReviewID: r.ID, UserID: alice.ID, Rating: 4}); err != nil {
		t.Fatal(err)
	}
	if len(b.store.published) != 1 {
		t.Errorf("a federated import published %d activities, want 1", len(b.store.published))
	}
}

// TestQuietReviewsSendNoUpdateOrDelete: followers never got a quiet review's Create, so its edit
// and its deletion send nothing either; a federated review's do.
func TestQuietReviewsSendNoUpdateOrDelete(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.addUser("alice")
	quiet, loud := b.addReview(alice), b.addReview(alice)
	quiet.Quiet = true
	b.store.reviews[quiet.ID] = quiet
	b.store.followerInbox[alice.ID] = []string{"https://a.example/inbox"}
	ctx := context.Background()
	for i, e := range []domain.Event{
		domain.ReviewUpdated{ReviewID: quiet.ID, UserID: alice.ID, Rating: 3},
		domain.ReviewDeleted{ReviewID: quiet.ID, UserID: alice.ID, Quiet: true},
	} {
		if err := b.svc.Outbound(ctx, "quiet"+string(rune('0'+i)), e); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(b.store.published); n != 0 {
		t.Fatalf("a quiet review's edit and deletion published %d activities, want none", n)
	}
	for i, e := range []domain.Event{
		domain.ReviewUpdated{ReviewID: loud.ID, UserID: alice.ID, Rating: 3},
		domain.ReviewDeleted{ReviewID: loud.ID, UserID: alice.ID},
	} {
		if err := b.svc.Outbound(ctx, "loud"+string(rune('0'+i)), e); err != nil {
			t.Fatal(err)
		}
	}
	if p := b.store.published; len(p) != 2 || p[0].Type != "Update" || p[1].Type != "Delete" {
		t.Errorf("a federated review's edit and deletion published %d activities, want an Update and a Delete", len(p))
	}
}

// TestBackfillSkipsQuietReviews: a new follower is not sent a quiet review's Create either, so
// no follower holds a review whose edits and deletion are never sent.
func TestBackfillSkipsQuietReviews(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.addUser("alice")
	quiet, loud := b.addReview(alice), b.addReview(alice)
	quiet.Quiet = true
	b.store.reviews[quiet.ID] = quiet
	bob := b.addActor("https://remote.example/users/bob", "")
	b.store.followStatus[bob.URL+" "+alice.ID.String()] = "accepted"
	if err := b.svc.Backfill(context.Background(), "accept", domain.FollowAccepted{OwnerID: alice.ID,
		Requester: domain.RemoteIdentity(bob.URL)}); err != nil {
		t.Fatal(err)
	}
	if p := b.store.published; len(p) != 1 || p[0].ObjectID != base+"/reviews/"+loud.ID.String() {
		t.Fatalf("backfill published %+v, want only the federated review", p)
	}
}
