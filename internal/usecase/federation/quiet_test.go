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
