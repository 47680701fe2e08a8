package federation_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/federation"
)

// TestOutboundFansOutOncePerInbox: a review goes to each distinct follower inbox once, never to
// a blocked domain or one under it; the activity id derives from the event id and each
// delivery's id from (activity id, inbox), so running the event again builds the same rows.
func TestOutboundFansOutOncePerInbox(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.addUser("alice")
	r := b.addReview(alice)
	b.store.followerInbox[alice.ID] = []string{"https://a.example/inbox", "https://a.example/inbox",
		"https://b.example/users/x/inbox", "https://evil.example/inbox", "https://sub.evil.example/inbox"}
	b.store.domainBlocks = []string{"evil.example"}
	const eventID = "0190a000-0000-7000-8000-000000000001"
	event := domain.ReviewLogged{ReviewID: r.ID, UserID: alice.ID, Rating: 4}
	for range 2 {
		if err := b.svc.Outbound(context.Background(), eventID, event); err != nil {
			t.Fatal(err)
		}
	}
	if len(b.store.published) != 2 {
		t.Fatalf("%d publications, want one per run", len(b.store.published))
	}
	p := b.store.published[0]
	wantID := federation.ActivityID(base, eventID, "Create")
	if p.ActivityID != wantID || p.Type != "Create" || p.ObjectID != base+"/reviews/"+r.ID.String() || p.ActorID != alice.ID {
		t.Errorf("publication %s %s of %s by %s", p.ActivityID, p.Type, p.ObjectID, p.ActorID)
	}
	var inboxes []string
	for _, d := range p.Deliveries {
		inboxes = append(inboxes, d.Event.InboxURL)
		if d.EventID != federation.DeliveryID(wantID, d.Event.InboxURL) || d.Event.SigningActorID != alice.ID {
			t.Errorf("delivery to %s: id %s signer %s", d.Event.InboxURL, d.EventID, d.Event.SigningActorID)
		}
	}
	if want := []string{"https://a.example/inbox", "https://b.example/users/x/inbox"}; !slices.Equal(inboxes, want) {
		t.Errorf("delivered to %v, want %v", inboxes, want)
	}
	replay := b.store.published[1]
	if replay.ActivityID != p.ActivityID || len(replay.Deliveries) != len(p.Deliveries) || replay.Deliveries[0].EventID != p.Deliveries[0].EventID {
		t.Errorf("the replay built different rows: %+v", replay)
	}
}

// TestOutboundFailsClosed: with federate_reviews or federate_watchlist off nothing is
// published, and when the settings cannot be read the event fails (to be retried) rather than
// federating what the user may have turned off.
func TestOutboundFailsClosed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	alice := b.addUser("alice")
	r := b.addReview(alice)
	b.store.followerInbox[alice.ID] = []string{"https://a.example/inbox"}
	added := domain.WatchlistEntryAdded{UserID: alice.ID, MovieID: domain.MovieIDFor("tt0133093"), MovieTitle: "The Matrix"}

	b.store.settings[alice.ID] = domain.FederationSettings{}
	for _, e := range []domain.Event{domain.ReviewLogged{ReviewID: r.ID, UserID: alice.ID}, added} {
		if err := b.svc.Outbound(ctx, "e1", e); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(b.store.published); n != 0 {
		t.Fatalf("%d publications with federation off, want 0", n)
	}
	b.store.settingsErr = errors.New("database is locked")
	for _, e := range []domain.Event{domain.ReviewLogged{ReviewID: r.ID, UserID: alice.ID}, added} {
		if err := b.svc.Outbound(ctx, "e2", e); err == nil || domain.IsPermanent(err) {
			t.Errorf("%s with unreadable settings: %v, want a transient error", e.EventType(), err)
		}
	}
	if n := len(b.store.published); n != 0 {
		t.Errorf("%d publications with unreadable settings, want 0", n)
	}
}

// TestOutboundRelations: a Follow goes to the target's own inbox and records the relation; its
// Undo carries the recorded Follow id; a Follow of an actor the user blocked is not sent; an
// Accept is sent only for a follow that is accepted.
func TestOutboundRelations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	alice := b.addUser("alice")
	me := base + "/users/" + alice.ID.String()
	bob := b.addActor("https://remote.example/users/bob", "https://remote.example/inbox")
	target := domain.RemoteIdentity(bob.URL)

	if err := b.svc.Outbound(ctx, "f1", domain.FollowRequested{FollowerID: alice.ID, Target: target}); err != nil {
		t.Fatal(err)
	}
	follow := b.store.published[0]
	if follow.Relation == nil || follow.Relation.ActivityID != follow.ActivityID || follow.Relation.Actor != me ||
		len(follow.Deliveries) != 1 || follow.Deliveries[0].Event.InboxURL != bob.Inbox {
		t.Fatalf("Follow = %+v", follow)
	}
	b.store.relations["Follow "+me+" "+bob.URL] = *follow.Relation
	if err := b.svc.Outbound(ctx, "u1", domain.Unfollowed{FollowerID: alice.ID, Target: target}); err != nil {
		t.Fatal(err)
	}
	var undo federation.Activity
	if err := json.Unmarshal(b.store.published[1].Activity, &undo); err != nil {
		t.Fatal(err)
	}
	if undo.Type != "Undo" || undo.Object.Activity == nil || undo.Object.Activity.ActivityID != follow.ActivityID {
		t.Errorf("Undo = %+v, want it to carry the Follow %s", undo, follow.ActivityID)
	}

	b.store.userBlocks[alice.ID.String()+" "+bob.URL] = true
	if err := b.svc.Outbound(ctx, "f2", domain.FollowRequested{FollowerID: alice.ID, Target: target}); err != nil {
		t.Fatal(err)
	}
	if err := b.svc.Outbound(ctx, "a1", domain.FollowAccepted{OwnerID: alice.ID, Requester: target}); err != nil {
		t.Fatal(err)
	}
	if n := len(b.store.published); n != 2 {
		t.Fatalf("%d publications, want no Follow of a blocked actor and no Accept of a follow not accepted", n)
	}
	b.store.followStatus[bob.URL+" "+alice.ID.String()] = "accepted"
	if err := b.svc.Outbound(ctx, "a1", domain.FollowAccepted{OwnerID: alice.ID, Requester: target}); err != nil {
		t.Fatal(err)
	}
	if p := b.store.published[len(b.store.published)-1]; p.Type != "Accept" || p.Deliveries[0].Event.InboxURL != bob.Inbox {
		t.Errorf("Accept = %+v", p)
	}
}

// TestForeignRowIDsRepeat: an event without an id (a foreign writer's row) gets activity ids
// from its payload, the same on every run.
func TestForeignRowIDsRepeat(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.addUser("alice")
	b.store.followerInbox[alice.ID] = []string{"https://a.example/inbox"}
	e := domain.UserDeleted{UserID: alice.ID}
	for range 2 {
		if err := b.svc.Outbound(context.Background(), "", e); err != nil {
			t.Fatal(err)
		}
	}
	if p := b.store.published; len(p) != 2 || p[0].ActivityID != p[1].ActivityID || p[0].ActivityID == "" {
		t.Errorf("activity ids %q and %q, want the same", p[0].ActivityID, p[1].ActivityID)
	}
}

// TestIdenticalForeignRowsAreTwoEvents: two id-less rows with equal payloads (the same edit made
// twice) keyed by their rows are two Updates with two ids, and each row's replay repeats its
// own id; the payload hash alone collapsed them into one.
func TestIdenticalForeignRowsAreTwoEvents(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.addUser("alice")
	r := b.addReview(alice)
	b.store.followerInbox[alice.ID] = []string{"https://a.example/inbox"}
	e := domain.ReviewUpdated{ReviewID: r.ID, UserID: alice.ID}
	for _, row := range []int64{7, 8, 7} {
		if err := b.svc.Outbound(context.Background(), federation.RowKey(row), e); err != nil {
			t.Fatal(err)
		}
	}
	p := b.store.published
	if len(p) != 3 || p[0].ActivityID == p[1].ActivityID || p[0].ActivityID != p[2].ActivityID {
		t.Errorf("activity ids %q, want rows 7 and 8 distinct and row 7 repeated", []string{p[0].ActivityID, p[1].ActivityID, p[2].ActivityID})
	}
}

// TestDeliverSkipsBlockedDomains: a delivery to an instance blocked since the fan-out is dropped
// without a request; another is sent.
func TestDeliverSkipsBlockedDomains(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.store.domainBlocks = []string{"evil.example"}
	for _, inbox := range []string{"https://evil.example/inbox", "https://good.example/inbox"} {
		if err := b.svc.Deliver(context.Background(), "d", domain.FederationDeliveryRequested{InboxURL: inbox}); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(b.remote.deliveries, []string{"https://good.example/inbox"}) {
		t.Errorf("delivered to %v, want only good.example", b.remote.deliveries)
	}
}
