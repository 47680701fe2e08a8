package federation_test

import (
	"context"
	"testing"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/federation"
)

// TestRemoteReviewIDIsWhatProcessSaves: the id RemoteReviewID gives is the one a received
// review is saved under (the adoption of a movies-diary database relies on it).
func TestRemoteReviewIDIsWhatProcessSaves(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const bob = "https://remote.example/users/bob"
	note := review(bob, bob+"/reviews/1")
	e := domain.ActivityReceived{ActivityID: bob + "/a", ActorURL: bob}
	if err := b.svc.Process(context.Background(), e, federation.Inbound{Type: "Create", Actor: bob, Note: note}); err != nil {
		t.Fatal(err)
	}
	if len(b.store.savedReviews) != 1 || b.store.savedReviews[0].ID != federation.RemoteReviewID(note.ID) {
		t.Fatalf("saved %+v, want id %s", b.store.savedReviews, federation.RemoteReviewID(note.ID))
	}
}
