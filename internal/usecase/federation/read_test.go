package federation_test

import (
	"context"
	"testing"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/federation"
)

// TestReadsHideWhatDoesNotFederate: a user who does not federate reviews has an empty outbox
// and their review Note is not found; the instance actor's outbox is empty; a review without a
// recorded Create is listed under an id derived from the review.
func TestReadsHideWhatDoesNotFederate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	alice := b.addUser("alice")
	r := b.addReview(alice)

	items, total, err := b.svc.Outbox(ctx, alice.ID, 0, 20)
	if err != nil || total != 1 || len(items) != 1 || items[0].CreateID != federation.ActivityID(base, r.ID.String(), "Create") {
		t.Fatalf("outbox = %+v, %d, %v", items, total, err)
	}
	b.store.created[base+"/reviews/"+r.ID.String()] = base + "/activities/sent"
	if items, _, _ := b.svc.Outbox(ctx, alice.ID, 0, 20); items[0].CreateID != base+"/activities/sent" {
		t.Errorf("outbox lists %s, want the Create we sent", items[0].CreateID)
	}
	if items, total, err := b.svc.Outbox(ctx, federation.InstanceActorID, 0, 20); err != nil || total != 0 || len(items) != 0 {
		t.Errorf("instance actor's outbox = %+v, %d, %v, want empty", items, total, err)
	}

	b.store.settings[alice.ID] = domain.FederationSettings{Watchlist: true}
	if items, total, err := b.svc.Outbox(ctx, alice.ID, 0, 20); err != nil || total != 0 || len(items) != 0 {
		t.Errorf("outbox with federate_reviews off = %+v, %d, %v, want empty", items, total, err)
	}
	if _, _, err := b.svc.Review(ctx, r.ID); domain.KindOf(err) != domain.KindNotFound {
		t.Errorf("review with federate_reviews off: %v, want not found", err)
	}
}
