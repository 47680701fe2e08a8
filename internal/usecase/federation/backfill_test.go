package federation_test

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/federation"
)

// TestImportBoundsPagesAndHosts: the import follows the collection to its first page and then
// next links, at most ImportPages pages after the collection, stops at a page on another host,
// and saves only the actor's own review Creates.
func TestImportBoundsPagesAndHosts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	alice := b.addUser("alice")
	bob := b.addActor("https://remote.example/users/bob", "")
	bob.Outbox = bob.URL + "/outbox"
	b.remote.actors[bob.URL] = bob
	b.store.followStatus[alice.ID.String()+" "+bob.URL] = "accepted"
	page := func(n int) string { return bob.Outbox + "?page=" + strconv.Itoa(n) }
	b.remote.pages[bob.Outbox] = federation.OutboxPage{Collection: true, First: page(1)}
	for n := 1; n <= 10; n++ {
		b.remote.pages[page(n)] = federation.OutboxPage{Next: page(n + 1), Items: []federation.Inbound{
			{Type: "Create", Actor: bob.URL, Note: review(bob.URL, bob.URL+"/reviews/"+strconv.Itoa(n))},
			{Type: "Create", Actor: "https://remote.example/users/mallory", Note: review(bob.URL, bob.URL+"/reviews/m"+strconv.Itoa(n))},
			{Type: "Announce", Actor: bob.URL, Note: review(bob.URL, bob.URL+"/reviews/a"+strconv.Itoa(n))},
		}}
	}
	accepted := domain.FollowAccepted{OwnerID: alice.ID, Requester: domain.RemoteIdentity(bob.URL), Direction: domain.FollowOutgoing}
	if err := b.svc.Import(ctx, accepted); err != nil {
		t.Fatal(err)
	}
	want := []string{bob.Outbox}
	for n := 1; n <= federation.ImportPages; n++ {
		want = append(want, page(n))
	}
	if !slices.Equal(b.remote.fetched, want) {
		t.Errorf("fetched %v, want %v", b.remote.fetched, want)
	}
	if n := len(b.store.savedReviews); n != federation.ImportPages {
		t.Errorf("%d reviews saved, want one per page (%d)", n, federation.ImportPages)
	}

	b.remote.fetched = nil
	b.remote.pages[page(1)] = federation.OutboxPage{Next: "https://other.example/outbox?page=2"}
	if err := b.svc.Import(ctx, accepted); err != nil {
		t.Fatal(err)
	}
	if len(b.remote.fetched) != 2 {
		t.Errorf("fetched %v, want to stop before the page on another host", b.remote.fetched)
	}
}

// TestBackfillSendsRecentReviews: a newly accepted remote follower is sent the owner's reviews,
// one Create each to its own inbox, with ids from the event and the review; nothing when the
// owner does not federate reviews.
func TestBackfillSendsRecentReviews(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	alice := b.addUser("alice")
	r := b.addReview(alice)
	bob := b.addActor("https://remote.example/users/bob", "https://remote.example/inbox")
	b.store.followStatus[bob.URL+" "+alice.ID.String()] = "accepted"
	accepted := domain.FollowAccepted{OwnerID: alice.ID, Requester: domain.RemoteIdentity(bob.URL)}
	if err := b.svc.Backfill(ctx, "ev", accepted); err != nil {
		t.Fatal(err)
	}
	p := b.store.published
	if len(p) != 1 || p[0].ActivityID != federation.ActivityID(base, "ev", "Create/"+r.ID.String()) ||
		len(p[0].Deliveries) != 1 || p[0].Deliveries[0].Event.InboxURL != bob.Inbox {
		t.Fatalf("backfill published %+v", p)
	}
	b.store.settings[alice.ID] = domain.FederationSettings{}
	if err := b.svc.Backfill(ctx, "ev2", accepted); err != nil || len(b.store.published) != 1 {
		t.Errorf("backfill with federate_reviews off: %v, %d publications, want none more", err, len(b.store.published))
	}
}

// TestMutualFollowAnswersEachFollowOnce: alice (local) follows bob (remote), bob accepts; bob
// follows alice, alice accepts. The two FollowAccepted events are handled once the follow is
// mutual (the worker may run them late): exactly one Accept (of bob's Follow), one backfill of
// alice's reviews to bob, and one import of bob's outbox. The original sent a second Accept and
// a second backfill for bob's acceptance.
func TestMutualFollowAnswersEachFollowOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	alice := b.addUser("alice")
	b.addReview(alice)
	bob := b.addActor("https://remote.example/users/bob", "")
	bob.Outbox = bob.URL + "/outbox"
	b.remote.actors[bob.URL] = bob
	b.remote.pages[bob.Outbox] = federation.OutboxPage{Items: []federation.Inbound{}}
	b.store.followStatus[alice.ID.String()+" "+bob.URL] = "accepted"
	b.store.followStatus[bob.URL+" "+alice.ID.String()] = "accepted"
	b.store.relations["Follow "+bob.URL+" "+base+"/users/"+alice.ID.String()] = domain.Relation{Type: "Follow",
		Actor: bob.URL, Object: base + "/users/" + alice.ID.String(), ActivityID: bob.URL + "/follows/1"}
	events := map[string]domain.Event{
		"bob-accepted":   domain.FollowAccepted{OwnerID: alice.ID, Requester: domain.RemoteIdentity(bob.URL), Direction: domain.FollowOutgoing},
		"alice-accepted": domain.FollowAccepted{OwnerID: alice.ID, Requester: domain.RemoteIdentity(bob.URL), Direction: domain.FollowIncoming},
	}
	for id, e := range events {
		if err := b.svc.Outbound(ctx, id, e); err != nil {
			t.Fatal(err)
		}
		if err := b.svc.Backfill(ctx, id, e); err != nil {
			t.Fatal(err)
		}
		if err := b.svc.Import(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	count := map[string]int{}
	for _, p := range b.store.published {
		count[p.Type]++
	}
	if count["Accept"] != 1 || count["Create"] != 1 || len(b.store.published) != 2 {
		t.Errorf("published %v, want one Accept and one backfilled Create", count)
	}
	if !slices.Equal(b.remote.fetched, []string{bob.Outbox}) {
		t.Errorf("outbox fetches %v, want one import of bob's outbox", b.remote.fetched)
	}
}

// TestBackfillFollowerOfTheOriginal: the original's BackfillFollower (an adopted outbox's) sends
// the owner's reviews to the inbox it names while that inbox is still an accepted follower's,
// with ids from the event; nothing once no follower has it, or with federate_reviews off.
func TestBackfillFollowerOfTheOriginal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	alice := b.addUser("alice")
	r := b.addReview(alice)
	const shared = "https://remote.example/inbox"
	b.store.followerInbox[alice.ID] = []string{shared}
	if err := b.svc.Backfill(ctx, "ev", domain.BackfillFollower{OwnerUserID: alice.ID, FollowerInboxURL: shared}); err != nil {
		t.Fatal(err)
	}
	p := b.store.published
	if len(p) != 1 || p[0].Type != "Create" || p[0].ActivityID != federation.ActivityID(base, "ev", "Create/"+r.ID.String()) ||
		len(p[0].Deliveries) != 1 || p[0].Deliveries[0].Event.InboxURL != shared {
		t.Fatalf("backfill published %+v, want one Create to %s", p, shared)
	}
	gone := domain.BackfillFollower{OwnerUserID: alice.ID, FollowerInboxURL: "https://left.example/inbox"}
	if err := b.svc.Backfill(ctx, "ev2", gone); err != nil || len(b.store.published) != 1 {
		t.Errorf("backfill to an inbox no follower has: %v, %d publications, want none more", err, len(b.store.published))
	}
	b.store.settings[alice.ID] = domain.FederationSettings{}
	if err := b.svc.Backfill(ctx, "ev3", domain.BackfillFollower{OwnerUserID: alice.ID, FollowerInboxURL: shared}); err != nil ||
		len(b.store.published) != 1 {
		t.Errorf("backfill with federate_reviews off: %v, %d publications, want none more", err, len(b.store.published))
	}
}
