package activitypub_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"moviesdiary/internal/adapters/activitypub"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/federation"

	"github.com/jmoiron/sqlx"
)

// TestRemoteFollowAndBlockAtomicWithEvents: a remote follow or block whose event cannot be
// written is not stored either; one whose event is written is stored with it.
func TestRemoteFollowAndBlockAtomicWithEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newInstance(t, nil)
	alice := a.user("alice")
	bob := domain.RemoteIdentity("https://remote.test/users/bob")
	// A second handle on the same file whose event inserts fail.
	failing := sqlitetest.Open(t, a.store.Path(), sqlite.WithEnqueue(func(context.Context, *sqlx.Tx, time.Time, ...domain.Event) error {
		return errors.New("injected enqueue failure")
	}))
	if err := failing.Follow(ctx, alice.ID, bob); err == nil {
		t.Fatal("follow succeeded although its event could not be written")
	}
	if err := failing.Block(ctx, alice.ID, bob); err == nil {
		t.Fatal("block succeeded although its event could not be written")
	}
	if n := a.count(`SELECT (SELECT count(*) FROM follows) + (SELECT count(*) FROM blocks) + (SELECT count(*) FROM event_queue)`); n != 0 {
		t.Fatalf("%d follow, block or event rows after failed writes, want 0", n)
	}
	if err := a.store.Follow(ctx, alice.ID, bob); err != nil {
		t.Fatal(err)
	}
	if err := a.store.Block(ctx, alice.ID, bob); err != nil {
		t.Fatal(err)
	}
	if n := a.count(`SELECT count(*) FROM blocks WHERE target_id = ?`, bob.ID); n != 1 {
		t.Errorf("%d blocks, want 1", n)
	}
	if n := a.count(`SELECT count(*) FROM event_queue WHERE event_type IN ('FollowRequested', 'ActorBlocked')`); n != 2 {
		t.Errorf("%d follow/block events, want 2", n)
	}
}

// TestRemoteFollowLifecycle: alice follows bob@remote by handle (WebFinger); the worker sends
// the Follow; bob's Accept arrives signed at her inbox, makes the follow accepted and has bob's
// outbox imported; unfollowing sends an Undo that carries the Follow's id.
func TestRemoteFollowLifecycle(t *testing.T) {
	t.Parallel()
	a := newInstance(t, nil)
	alice, token := a.register("alice")
	r := newRemote(t)
	bob := r.addUser("bob")
	r.outbox["bob"] = []any{map[string]any{"id": bob + "/activities/1", "type": "Create", "actor": bob,
		"object": reviewNote(bob, bob+"/reviews/1", 4, "Heat", "tt0113277")}}
	a.startWorker()

	a.must(200, "POST", "/api/v1/social/follow", token, map[string]string{"handle": "@bob@" + r.host()})
	if n := a.count(`SELECT count(*) FROM follows WHERE target_id = ? AND status = 'pending'`, bob); n != 1 {
		t.Fatalf("%d pending follows of bob, want 1", n)
	}
	eventually(t, "bob receives the Follow", func() bool { return len(r.postsOf("Follow")) == 1 })
	var eventID string
	if err := a.db.QueryRow(`SELECT event_id FROM event_queue WHERE event_type = 'FollowRequested'`).Scan(&eventID); err != nil {
		t.Fatal(err)
	}
	follow := r.postsOf("Follow")[0].Activity
	if follow["id"] != federation.ActivityID(a.base, eventID, "Follow") || follow["actor"] != a.actor(alice) || follow["object"] != bob {
		t.Fatalf("Follow = %v", follow)
	}

	accept := map[string]any{"@context": "https://www.w3.org/ns/activitystreams", "id": bob + "/accepts/1", "type": "Accept",
		"actor": bob, "object": follow}
	if resp := r.signedPost(a.actor(alice)+"/inbox", "bob", accept, time.Now(), nil); resp.StatusCode != 202 {
		t.Fatalf("Accept: status %d", resp.StatusCode)
	}
	eventually(t, "the follow is accepted and bob's outbox imported", func() bool {
		return a.count(`SELECT count(*) FROM follows WHERE target_id = ? AND status = 'accepted'`, bob) == 1 &&
			a.count(`SELECT count(*) FROM reviews WHERE ap_id = ?`, bob+"/reviews/1") == 1
	})
	if n := a.count(`SELECT count(*) FROM reviews WHERE ap_id = ? AND movie_id = ?`, bob+"/reviews/1",
		domain.MovieIDFor("tt0113277").String()); n != 1 {
		t.Error("the imported review's movie id is not UUIDv5 of its external id")
	}

	a.must(200, "POST", "/api/v1/social/unfollow", token, map[string]string{"actor_url": bob})
	eventually(t, "bob receives the Undo", func() bool { return len(r.postsOf("Undo")) == 1 })
	undo := r.postsOf("Undo")[0].Activity
	inner, _ := undo["object"].(map[string]any)
	if inner["type"] != "Follow" || inner["id"] != follow["id"] || inner["object"] != bob {
		t.Errorf("Undo carries %v, want the Follow %v", inner, follow["id"])
	}
	if n := a.count(`SELECT count(*) FROM follows`); n != 0 {
		t.Errorf("%d follows after unfollowing, want 0", n)
	}
}

// TestBlocksBothWays: a blocked actor gets a Block, loses its follow, receives nothing more and
// cannot post to the blocker's inbox; a blocked instance can reach no inbox of ours and is sent
// nothing.
func TestBlocksBothWays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newInstance(t, nil)
	alice, token := a.register("alice")
	r, other := newRemote(t), newRemote(t)
	eve, frank := r.addUser("eve"), other.addUser("frank")
	a.acceptRemoteFollower(alice, eve)
	a.acceptRemoteFollower(alice, frank)
	a.startWorker()
	eventually(t, "the Accepts settle", a.settled)

	a.must(204, "POST", "/api/v1/social/block", token, map[string]string{"actor_url": eve})
	eventually(t, "eve receives the Block", func() bool { return len(r.postsOf("Block")) == 1 })
	if got := r.postsOf("Block")[0].Activity; got["actor"] != a.actor(alice) || got["object"] != eve {
		t.Errorf("Block = %v", got)
	}
	if n := a.count(`SELECT count(*) FROM follows WHERE follower_id = ?`, eve); n != 0 {
		t.Errorf("eve still follows alice after the block")
	}
	refollow := map[string]any{"id": eve + "/follows/2", "type": "Follow", "actor": eve, "object": a.actor(alice)}
	if resp := r.signedPost(a.actor(alice)+"/inbox", "eve", refollow, time.Now(), nil); resp.StatusCode != 403 {
		t.Errorf("blocked actor's Follow to the user's inbox: status %d, want 403", resp.StatusCode)
	}
	// Through the shared inbox it is stored, but processing refuses it.
	if resp := r.signedPost(a.base+"/inbox", "eve", refollow, time.Now(), nil); resp.StatusCode != 202 {
		t.Errorf("Follow to the shared inbox: status %d, want 202", resp.StatusCode)
	}

	if err := a.store.BlockDomain(ctx, "127.0.0.1", "test"); err != nil { // both remotes are on 127.0.0.1
		t.Fatal(err)
	}
	eventually(t, "the outbox settles", a.settled)
	if n := a.count(`SELECT count(*) FROM follows WHERE follower_id = ?`, eve); n != 0 {
		t.Errorf("the blocked actor's Follow was stored")
	}
	follow := map[string]any{"id": frank + "/follows/9", "type": "Follow", "actor": frank, "object": a.actor(alice)}
	if resp := other.signedPost(a.base+"/inbox", "frank", follow, time.Now(), nil); resp.StatusCode != 403 {
		t.Errorf("POST from a blocked instance: status %d, want 403", resp.StatusCode)
	}
	a.logReview(alice, 5)
	eventually(t, "the outbox settles", a.settled)
	if got := other.postsOf("Create"); len(got) != 0 {
		t.Errorf("a blocked instance was sent %d Creates", len(got))
	}
	if n := a.count(`SELECT count(*) FROM event_queue WHERE event_type = 'FederationDeliveryRequested' AND payload LIKE '%"Create"%'`); n != 0 {
		t.Errorf("%d deliveries of the review to a blocked instance, want 0", n)
	}
	status, _ := a.call("POST", "/api/v1/social/follow", token, map[string]string{"handle": "frank@" + other.host()})
	if status != 403 {
		t.Errorf("following an actor of a blocked instance: status %d, want 403", status)
	}
}

// TestInboundReviews: a remote review Note is stored keyed by its object id with the movie id
// instances agree on; a repeated activity is processed once, an Update changes the same row
// (only from its author), a Delete removes it, and a Delete of the actor removes all of theirs.
func TestInboundReviews(t *testing.T) {
	t.Parallel()
	a := newInstance(t, nil)
	a.user("alice")
	r := newRemote(t)
	bob, mallory := r.addUser("bob"), r.addUser("mallory")
	a.startWorker()
	noteID := bob + "/reviews/7"
	create := map[string]any{"id": bob + "/activities/c7", "type": "Create", "actor": bob,
		"object": reviewNote(bob, noteID, 4, "The Matrix", "tt0133093")}
	for range 2 {
		if resp := r.signedPost(a.base+"/inbox", "bob", create, time.Now(), nil); resp.StatusCode != 202 {
			t.Fatalf("Create: status %d", resp.StatusCode)
		}
	}
	eventually(t, "the review is stored", func() bool { return a.count(`SELECT count(*) FROM reviews WHERE ap_id = ?`, noteID) == 1 })
	var movieID, userID string
	var rating int
	if err := a.db.QueryRow(`SELECT movie_id, user_id, rating FROM reviews WHERE ap_id = ?`, noteID).Scan(&movieID, &userID, &rating); err != nil {
		t.Fatal(err)
	}
	if movieID != domain.MovieIDFor("tt0133093").String() || userID != federation.RemoteUserID(bob).String() || rating != 4 {
		t.Errorf("stored movie %s user %s rating %d", movieID, userID, rating)
	}
	if n := a.count(`SELECT count(*) FROM event_queue WHERE event_type = 'ActivityReceived'`); n != 1 {
		t.Errorf("%d ActivityReceived events for one activity sent twice, want 1", n)
	}
	var feed struct {
		Items []struct {
			IsFederated bool   `json:"is_federated"`
			ActorURL    string `json:"actor_url"`
		} `json:"items"`
	}
	if err := jsonUnmarshal(a.must(200, "GET", "/api/v1/activity-feed", "", nil), &feed); err != nil || len(feed.Items) != 1 ||
		!feed.Items[0].IsFederated || feed.Items[0].ActorURL != bob {
		t.Errorf("feed = %+v (%v), want bob's federated review", feed, err)
	}

	forged := map[string]any{"id": mallory + "/activities/u1", "type": "Update", "actor": mallory,
		"object": reviewNote(bob, noteID, 1, "The Matrix", "tt0133093")}
	r.signedPost(a.base+"/inbox", "mallory", forged, time.Now(), nil)
	update := map[string]any{"id": bob + "/activities/u7", "type": "Update", "actor": bob,
		"object": reviewNote(bob, noteID, 2, "The Matrix", "tt0133093")}
	r.signedPost(a.base+"/inbox", "bob", update, time.Now(), nil)
	eventually(t, "the update is applied", func() bool {
		return a.count(`SELECT count(*) FROM reviews WHERE ap_id = ? AND rating = 2`, noteID) == 1 && a.settled()
	})
	if n := a.count(`SELECT count(*) FROM reviews`); n != 1 {
		t.Errorf("%d reviews after updates, want 1", n)
	}

	del := map[string]any{"id": bob + "/activities/d7", "type": "Delete", "actor": bob,
		"object": map[string]any{"id": noteID, "type": "Tombstone"}}
	r.signedPost(a.base+"/inbox", "bob", del, time.Now(), nil)
	eventually(t, "the review is deleted", func() bool { return a.count(`SELECT count(*) FROM reviews`) == 0 })

	second := map[string]any{"id": bob + "/activities/c8", "type": "Create", "actor": bob,
		"object": reviewNote(bob, bob+"/reviews/8", 5, "Alien", "tt0078748")}
	r.signedPost(a.base+"/inbox", "bob", second, time.Now(), nil)
	eventually(t, "the second review is stored", func() bool { return a.count(`SELECT count(*) FROM reviews`) == 1 })
	r.signedPost(a.base+"/inbox", "bob", map[string]any{"id": bob + "#delete", "type": "Delete", "actor": bob, "object": bob},
		time.Now(), nil)
	eventually(t, "the deleted actor's reviews are gone", func() bool { return a.count(`SELECT count(*) FROM reviews`) == 0 })
}

// reviewNote is a review Note as moviesdiary instances publish it.
func reviewNote(actor, id string, rating int, title, ext string) map[string]any {
	return map[string]any{"id": id, "type": "Note", "attributedTo": actor, "content": title, "review": true,
		"movieTitle": title, "releaseYear": 1999, "externalMetadataId": ext, "rating": rating, "comment": "<b>good</b>",
		"watchedAt": "2024-03-01T20:00:00Z", "published": "2024-03-02T10:00:00Z", "to": []string{activitypub.Public}}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
