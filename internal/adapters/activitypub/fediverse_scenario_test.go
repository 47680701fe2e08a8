package activitypub_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"moviesdiary/internal/usecase/federation"
)

// TestFederatesWithTheFediverse is the "done when", once per server flavor (Mastodon,
// GoToSocial, Akkoma, Misskey, a server with separate Key objects), against a real instance with
// its worker: the remote looks alice up (WebFinger, a signed GET of her actor, WebFinger back),
// follows her and is accepted (the Accept embeds its Follow), receives her review's Create,
// Update and Delete with HTML content at its shared inbox, is followed back (our Follow and our
// signed fetches pass its signer look-up, in secure mode too) and accepts in its own form,
// delivers a plain post that we acknowledge and count as not a review, and both follows are
// undone. Neither side refuses anything: no 401, no failed signer look-up.
func TestFederatesWithTheFediverse(t *testing.T) {
	t.Parallel()
	for _, fl := range flavors {
		t.Run(fl.name, func(t *testing.T) {
			t.Parallel()
			a := newInstance(t, nil)
			a.startWorker()
			alice, token := a.register("alice")
			aliceURL := a.actor(alice)
			r := newFedi(t, fl)
			bob := r.addUser("bob")

			// Look-up: WebFinger, then a signed GET of the actor, which WebFingers back to itself.
			var jrd struct {
				Subject string
				Links   []struct{ Rel, Type, Href string }
			}
			if err := getJSON(a.base+"/.well-known/webfinger?resource="+url.QueryEscape("acct:alice@"+a.host()), "application/jrd+json", &jrd); err != nil {
				t.Fatal(err)
			}
			if jrd.Subject != "acct:alice@"+a.host() || !slices.ContainsFunc(jrd.Links, func(l struct{ Rel, Type, Href string }) bool {
				return l.Rel == "self" && l.Href == aliceURL
			}) {
				t.Fatalf("WebFinger of alice: %+v", jrd)
			}
			if status, body := r.send(http.MethodGet, aliceURL, "bob", nil); status != http.StatusOK || !strings.Contains(string(body), `"preferredUsername":"alice"`) {
				t.Fatalf("signed GET of alice: %d %s", status, body)
			}
			if _, err := lookUpSigner(aliceURL + "#main-key"); err != nil {
				t.Fatalf("alice does not round-trip: %v", err)
			}

			// bob follows alice; alice accepts; bob gets an Accept embedding his Follow.
			r.accepting(false)
			followID := bob + "/follows/" + uuid.NewString()
			if status, body := r.send(http.MethodPost, aliceURL+"/inbox", "bob", map[string]any{
				"@context": "https://www.w3.org/ns/activitystreams", "id": followID, "type": "Follow", "actor": bob, "object": aliceURL,
			}); status != http.StatusAccepted {
				t.Fatalf("Follow: %d %s", status, body)
			}
			eventually(t, "bob's request pending", func() bool {
				return len(actorURLs(t, a.must(200, "GET", "/api/v1/social/followers/pending", token, nil))) == 1
			})
			a.must(200, "POST", "/api/v1/social/followers/accept", token, map[string]string{"actor_url": bob})
			eventually(t, "bob gets the Accept", func() bool { return len(r.postsOf("Accept")) == 1 })
			accept := r.postsOf("Accept")[0].Activity
			if inner, _ := accept["object"].(map[string]any); inner["id"] != followID || inner["type"] != "Follow" || inner["actor"] != bob {
				t.Errorf("Accept does not embed bob's Follow: %v", accept)
			}

			// alice's review reaches bob's shared inbox as HTML, then its edit and its delete.
			var logged struct {
				Review struct{ ID string } `json:"review"`
			}
			if err := json.Unmarshal(a.must(201, "POST", "/api/v1/reviews", token, map[string]any{
				"manual_title": "Heat", "manual_release_year": 1995, "rating": 4, "watched_at": "2024-05-01",
				"comment": "1 < 2 & <b>long</b>\nand good\n\nsecond thought",
			}), &logged); err != nil {
				t.Fatal(err)
			}
			eventually(t, "bob gets the Create", func() bool { return len(r.postsOf("Create")) == 1 })
			create := r.postsOf("Create")[0]
			note, _ := create.Activity["object"].(map[string]any)
			content, _ := note["content"].(string)
			if create.Inbox != "/inbox" || !strings.Contains(content, "<p>1 &lt; 2 &amp; &lt;b&gt;long&lt;/b&gt;<br>and good</p><p>second thought</p>") ||
				!strings.HasPrefix(content, `<p>⭐⭐⭐⭐ <a href="`+a.base+"/movie/") || !strings.Contains(content, `">Heat (1995)</a></p>`) ||
				note["summary"] != nil {
				t.Errorf("Create at %s with content %q (summary %v)", create.Inbox, content, note["summary"])
			}
			if got := federation.PlainText(content); !strings.Contains(got, "1 < 2 & <b>long</b>\nand good") {
				t.Errorf("the content does not display as the comment: %q", got)
			}
			a.must(200, "PATCH", "/api/v1/reviews/"+logged.Review.ID, token, map[string]any{"rating": 2})
			eventually(t, "bob gets the Update", func() bool { return len(r.postsOf("Update")) == 1 })
			if up, _ := r.postsOf("Update")[0].Activity["object"].(map[string]any); up["id"] != note["id"] ||
				!strings.HasPrefix(up["content"].(string), "<p>⭐⭐ ") {
				t.Errorf("Update: %v", up)
			}
			// bob likes and boosts it, then takes the like back: the review counts them.
			noteID, _ := note["id"].(string)
			for _, act := range []map[string]any{
				{"id": bob + "#likes/1", "type": "Like", "object": noteID},
				{"id": bob + "/statuses/9/activity", "type": "Announce", "object": noteID,
					"to": []string{"https://www.w3.org/ns/activitystreams#Public"}},
				{"id": bob + "#likes/1/undo", "type": "Undo", "object": map[string]any{"id": bob + "#likes/1", "type": "Like", "actor": bob, "object": noteID}},
			} {
				act["@context"], act["actor"] = "https://www.w3.org/ns/activitystreams", bob
				if status, body := r.send(http.MethodPost, a.base+"/inbox", "bob", act); status != http.StatusAccepted {
					t.Fatalf("%s: %d %s", act["type"], status, body)
				}
			}
			counts := func() (likes, shares any) {
				_, _, doc := get(t, noteID, "application/activity+json")
				l, _ := doc["likes"].(map[string]any)
				sh, _ := doc["shares"].(map[string]any)
				return l["totalItems"], sh["totalItems"]
			}
			eventually(t, "the boost counted, the undone like not", func() bool {
				l, sh := counts()
				return l == float64(0) && sh == float64(1) && a.settled()
			})
			a.must(204, "DELETE", "/api/v1/reviews/"+logged.Review.ID, token, nil)
			eventually(t, "bob gets the Delete", func() bool { return len(r.postsOf("Delete")) == 1 })
			if del, _ := r.postsOf("Delete")[0].Activity["object"].(map[string]any); del["id"] != note["id"] || del["type"] != "Tombstone" {
				t.Errorf("Delete: %v", del)
			}

			// alice follows bob back: WebFinger, signed fetches, our Follow, bob's Accept in his form.
			r.accepting(true)
			a.must(200, "POST", "/api/v1/social/follow", token, map[string]string{"handle": "@bob@" + r.host()})
			eventually(t, "alice follows bob", func() bool {
				return slices.Contains(actorURLs(t, a.must(200, "GET", "/api/v1/social/following", token, nil)), bob)
			})
			ourFollow := r.postsOf("Follow")[0].Activity

			// bob posts something that is not a review: acknowledged, dropped, counted.
			before := a.fed.Ignored()[federation.IgnoredNotReview]
			if status, body := r.send(http.MethodPost, a.base+"/inbox", "bob", map[string]any{
				"@context": "https://www.w3.org/ns/activitystreams", "id": bob + "/statuses/1/activity", "type": "Create", "actor": bob,
				"to": []string{"https://www.w3.org/ns/activitystreams#Public"},
				"object": map[string]any{"id": bob + "/statuses/1", "type": "Note", "attributedTo": bob,
					"content": "<p>Just watched <a href=\"https://x.example\">a film</a></p>", "published": "2024-05-01T10:00:00Z"},
			}); status != http.StatusAccepted {
				t.Fatalf("plain post: %d %s", status, body)
			}
			eventually(t, "the post is dropped as not a review", func() bool {
				return a.fed.Ignored()[federation.IgnoredNotReview] == before+1
			})
			if n := a.count(`SELECT count(*) FROM reviews`); n != 0 {
				t.Errorf("%d reviews stored from a plain post", n)
			}

			// Undo both ways.
			if status, body := r.send(http.MethodPost, aliceURL+"/inbox", "bob", map[string]any{
				"@context": "https://www.w3.org/ns/activitystreams", "id": followID + "/undo", "type": "Undo", "actor": bob,
				"object": map[string]any{"id": followID, "type": "Follow", "actor": bob, "object": aliceURL},
			}); status != http.StatusAccepted {
				t.Fatalf("Undo: %d %s", status, body)
			}
			eventually(t, "bob leaves alice's followers", func() bool {
				return len(actorURLs(t, a.must(200, "GET", "/api/v1/social/followers", token, nil))) == 0
			})
			a.must(200, "POST", "/api/v1/social/unfollow", token, map[string]string{"actor_url": bob})
			eventually(t, "bob gets alice's Undo", func() bool { return len(r.postsOf("Undo")) == 1 })
			if inner, _ := r.postsOf("Undo")[0].Activity["object"].(map[string]any); inner["id"] != ourFollow["id"] || inner["type"] != "Follow" {
				t.Errorf("Undo does not embed our Follow %v: %v", ourFollow["id"], inner)
			}
			eventually(t, "the outbox settles", a.settled)
			if f := r.failures(); len(f) != 0 {
				t.Errorf("refusals (401s, failed signer look-ups): %q", f)
			}
			if n := a.count(`SELECT count(*) FROM event_queue WHERE status = 'dead_lettered'`); n != 0 {
				a.dump()
				t.Errorf("%d dead-lettered events", n)
			}
		})
	}
}
