package activitypub_test

import (
	"net/url"
	"testing"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/federation"
)

// TestEveryActorRoundTrips: every actor we serve, a user's and the instance actor that signs our
// fetches, WebFingers back to itself (by acct: and by actor URL), as Mastodon and GoToSocial
// require before they accept a signature; the instance actor's username cannot be registered.
func TestEveryActorRoundTrips(t *testing.T) {
	t.Parallel()
	a := newInstance(t, nil)
	alice := a.user("alice")
	for _, actorURL := range []string{a.actor(alice), a.base + "/users/" + federation.InstanceActorID.String()} {
		status, _, doc := get(t, actorURL, "application/activity+json")
		name, _ := doc["preferredUsername"].(string)
		if status != 200 || name == "" {
			t.Fatalf("%s: %d %v", actorURL, status, doc)
		}
		for _, resource := range []string{"acct:" + name + "@" + a.host(), actorURL} {
			status, _, jrd := get(t, a.base+"/.well-known/webfinger?resource="+url.QueryEscape(resource), "")
			self := ""
			for _, l := range jrd["links"].([]any) {
				if l := l.(map[string]any); l["rel"] == "self" {
					self, _ = l["href"].(string)
				}
			}
			if status != 200 || jrd["subject"] != "acct:"+name+"@"+a.host() || self != actorURL {
				t.Errorf("WebFinger %s: %d subject %v self %q, want %s", resource, status, jrd["subject"], self, actorURL)
			}
		}
		if _, err := lookUpSigner(actorURL + "#main-key"); err != nil {
			t.Errorf("a remote server cannot look up %s: %v", actorURL, err)
		}
	}
	if _, err := domain.NormalizeUsername(federation.InstanceUsername); err == nil {
		t.Errorf("%q can be registered", federation.InstanceUsername)
	}
}

// TestActorProfileAndFeatured: the actor shows the profile (display name, bio as HTML summary)
// with the properties Mastodon reads (featured, discoverable, manuallyApprovesFollowers,
// published, sharedInbox, url: the web client's user page), and its featured collection is
// served, empty; an empty collection still links its (empty) first page.
func TestActorProfileAndFeatured(t *testing.T) {
	t.Parallel()
	a := newInstance(t, nil)
	alice := a.user("alice")
	if _, err := a.db.Exec(`UPDATE users SET display_name = 'Alice <3', bio = 'Films & more' || char(10) || 'daily' WHERE id = ?`, alice.ID.String()); err != nil {
		t.Fatal(err)
	}
	_, _, doc := get(t, a.actor(alice), "application/activity+json")
	ep, _ := doc["endpoints"].(map[string]any)
	if doc["name"] != "Alice <3" || doc["summary"] != "<p>Films &amp; more<br>daily</p>" || doc["featured"] != a.actor(alice)+"/featured" ||
		doc["discoverable"] != true || doc["manuallyApprovesFollowers"] != true || doc["published"] == nil ||
		ep["sharedInbox"] != a.base+"/inbox" || doc["type"] != "Person" || doc["url"] != a.base+"/u/"+alice.ID.String() {
		t.Errorf("actor = %v", doc)
	}
	review := a.base + "/reviews/" + a.logReview(alice, 4).String()
	if status, _, _ := get(t, review, "text/html"); status != 303 {
		t.Errorf("a review for a browser = %d, want 303 to its movie", status)
	}
	if status, _, note := get(t, review, "application/activity+json"); status != 200 || note["type"] != "Note" {
		t.Errorf("a review for a server = %d %v", status, note)
	}
	_, _, followers := get(t, a.actor(alice)+"/followers", "application/activity+json")
	_, _, page := get(t, a.actor(alice)+"/followers?page=1", "application/activity+json")
	if items, ok := page["orderedItems"].([]any); followers["first"] != a.actor(alice)+"/followers?page=1" || !ok || len(items) != 0 {
		t.Errorf("an empty collection: %v, its first page %v", followers, page)
	}
	status, _, featured := get(t, a.actor(alice)+"/featured", "application/activity+json")
	if status != 200 || featured["type"] != "OrderedCollection" || featured["totalItems"] != float64(0) {
		t.Errorf("featured = %d %v", status, featured)
	}
}
