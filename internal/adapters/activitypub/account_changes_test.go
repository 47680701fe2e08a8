package activitypub_test

import (
	"net/url"
	"strings"
	"testing"
)

// TestAccountChangesReachTheOtherInstance runs issue 35's self-service against a second real
// instance that follows the account: alice@A follows bob@B and has his review; bob renames
// himself to robert, and A's cache of his actor has the new handle (the actor's Update) while B's
// WebFinger still answers for the old handle, naming the new one, so carol@A can follow him by
// the handle she wrote down; then bob deletes his account, and A forgets him: no follow, no
// follower, no review, no cached actor, and WebFinger on B answers for neither name.
func TestAccountChangesReachTheOtherInstance(t *testing.T) {
	t.Parallel()
	a, b := newInstance(t, nil), newInstance(t, nil)
	a.startWorker()
	b.startWorker()
	alice, aliceToken := a.register("alice")
	_, carolToken := a.register("carol")
	b.register("admin") // B's first account, its admin: bob is not the last admin
	bob, bobToken := b.register("bob")
	bobURL := b.actor(bob)

	a.must(200, "POST", "/api/v1/social/follow", aliceToken, map[string]string{"handle": "bob@" + b.host()})
	eventually(t, "bob has alice's request", func() bool {
		return len(actorURLs(t, b.must(200, "GET", "/api/v1/social/followers/pending", bobToken, nil))) == 1
	})
	b.must(200, "POST", "/api/v1/social/followers/accept", bobToken, map[string]string{"actor_url": a.actor(alice)})
	b.must(201, "POST", "/api/v1/reviews", bobToken, map[string]any{
		"manual_title": "Heat", "manual_release_year": 1995, "rating": 4, "watched_at": "2024-05-01"})
	eventually(t, "bob's review at A", func() bool {
		return a.count(`SELECT count(*) FROM reviews WHERE remote_actor_url = ?`, bobURL) == 1
	})

	// The rename: an Update of the actor reaches A; the old handle still resolves on B.
	b.must(200, "PUT", "/api/v1/account/username", bobToken, map[string]string{"username": "robert"})
	handleAtA := func() string {
		var h string
		if err := a.db.QueryRow(`SELECT handle FROM remote_actors WHERE url = ?`, bobURL).Scan(&h); err != nil {
			t.Fatal(err)
		}
		return h
	}
	eventually(t, "A has bob's new handle", func() bool { return strings.HasPrefix(handleAtA(), "@robert@") })
	for _, name := range []string{"bob", "robert"} {
		var jrd struct {
			Subject string
			Links   []struct{ Rel, Href string }
		}
		if err := getJSON(b.base+"/.well-known/webfinger?resource="+url.QueryEscape("acct:"+name+"@"+b.host()), "application/jrd+json", &jrd); err != nil {
			t.Fatalf("WebFinger of %s after the rename: %v", name, err)
		}
		if jrd.Subject != "acct:robert@"+b.host() || len(jrd.Links) == 0 || jrd.Links[0].Href != bobURL {
			t.Fatalf("WebFinger of %s after the rename: %+v", name, jrd)
		}
	}
	a.must(200, "POST", "/api/v1/social/follow", carolToken, map[string]string{"handle": "bob@" + b.host()})
	eventually(t, "carol's request by the old handle reaches robert", func() bool {
		return len(actorURLs(t, b.must(200, "GET", "/api/v1/social/followers/pending", bobToken, nil))) == 1
	})

	// The deletion: the actor's Delete reaches A, which forgets everything of his.
	b.must(204, "DELETE", "/api/v1/account", bobToken, map[string]string{"current_password": "password-bob"})
	eventually(t, "A forgets bob", func() bool {
		return a.count(`SELECT count(*) FROM reviews WHERE remote_actor_url = ?`, bobURL) == 0 &&
			a.count(`SELECT count(*) FROM follows WHERE target_id = ? OR follower_id = ?`, bobURL, bobURL) == 0 &&
			a.count(`SELECT count(*) FROM remote_actors WHERE url = ?`, bobURL) == 0
	})
	if got := actorURLs(t, a.must(200, "GET", "/api/v1/social/following", aliceToken, nil)); len(got) != 0 {
		t.Fatalf("alice still follows %v", got)
	}
	for _, name := range []string{"bob", "robert"} {
		b.must(404, "GET", "/.well-known/webfinger?resource="+url.QueryEscape("acct:"+name+"@"+b.host()), "", nil)
	}
}
