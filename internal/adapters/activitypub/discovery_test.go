package activitypub_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/activitypub"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
)

func envelope(eventID string, e domain.Event) delivery.Envelope {
	return delivery.Envelope{EventID: eventID, Event: e, Attempt: 1}
}

// get fetches url with an Accept header and returns the status, Content-Type and body.
func get(t *testing.T, url, accept string) (int, string, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var doc map[string]any
	_ = json.Unmarshal(raw, &doc)
	return resp.StatusCode, resp.Header.Get("Content-Type"), doc
}

// TestDiscoveryAndActor: WebFinger finds a user's actor, NodeInfo counts users and local
// reviews, the actor is served as ActivityPub JSON with a public key that verifies its
// signatures (a browser is redirected), and unknown or malformed ids are 404 and 400.
func TestDiscoveryAndActor(t *testing.T) {
	t.Parallel()
	a := newInstance(t, nil)
	alice := a.user("alice")
	a.logReview(alice, 4)

	status, ct, jrd := get(t, a.base+"/.well-known/webfinger?resource=acct:alice@"+a.host(), "")
	links, _ := jrd["links"].([]any)
	if status != 200 || ct != "application/jrd+json" || len(links) == 0 || links[0].(map[string]any)["href"] != a.actor(alice) {
		t.Errorf("webfinger = %d %s %v", status, ct, jrd)
	}
	if status, _, _ := get(t, a.base+"/.well-known/webfinger?resource=acct:nobody@"+a.host(), ""); status != 404 {
		t.Errorf("webfinger of an unknown user = %d, want 404", status)
	}
	if status, _, _ := get(t, a.base+"/.well-known/webfinger", ""); status != 400 {
		t.Errorf("webfinger without resource = %d, want 400", status)
	}
	_, _, links2 := get(t, a.base+"/.well-known/nodeinfo", "")
	href := links2["links"].([]any)[0].(map[string]any)["href"].(string)
	_, _, ni := get(t, href, "")
	usage, _ := ni["usage"].(map[string]any)
	software, _ := ni["software"].(map[string]any)
	if ni["version"] != "2.0" || usage["localPosts"] != float64(1) || usage["users"].(map[string]any)["total"] != float64(1) ||
		software["version"] != "v1.2.3-test" {
		t.Errorf("nodeinfo = %v", ni)
	}

	status, ct, actor := get(t, a.actor(alice), "application/activity+json")
	key, _ := actor["publicKey"].(map[string]any)
	if status != 200 || ct != "application/activity+json; charset=utf-8" || actor["id"] != a.actor(alice) ||
		actor["inbox"] != a.actor(alice)+"/inbox" || key["owner"] != a.actor(alice) {
		t.Fatalf("actor = %d %s %v", status, ct, actor)
	}
	pub, err := activitypub.ParsePublicKey(key["publicKeyPem"].(string))
	if err != nil {
		t.Fatal(err)
	}
	priv, _, err := a.store.ActorKey(context.Background(), alice.ID)
	if err != nil {
		t.Fatal(err)
	}
	sk, err := activitypub.ParsePrivateKey(priv)
	if err != nil || sk.PublicKey.N.Cmp(pub.N) != 0 {
		t.Errorf("the published key is not the user's signing key (%v)", err)
	}
	if status, _, _ := get(t, a.actor(alice), "text/html"); status != http.StatusSeeOther {
		t.Errorf("actor for a browser = %d, want 303", status)
	}
	if status, _, _ := get(t, a.base+"/users/"+uuid.NewString(), "application/activity+json"); status != 404 {
		t.Errorf("unknown actor = %d, want 404", status)
	}
	if status, _, _ := get(t, a.base+"/users/nope", "application/activity+json"); status != 400 {
		t.Errorf("malformed actor id = %d, want 400", status)
	}
}

// TestCollectionsPage: the outbox lists a user's reviews as Creates, newest first, 20 a page
// with next/prev links; followers and following are paged the same way; a watchlist entry we
// published dereferences to its Note, and to a Tombstone (410) after its Delete.
func TestCollectionsPage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newInstance(t, nil)
	alice := a.user("alice")
	for i := range 25 {
		r := domain.Review{ID: uuid.New(), UserID: alice.ID, Rating: 1 + i%5, WatchedAt: time.Date(2024, 1, 1+i, 0, 0, 0, 0, time.UTC),
			CreatedAt: time.Date(2024, 1, 1+i, 0, 0, 0, 0, time.UTC), UpdatedAt: time.Now()}
		m := domain.Movie{Title: "Movie " + strconv.Itoa(i), ReleaseYear: 2000 + i}
		if _, err := a.store.LogReview(ctx, r, m, nil); err != nil {
			t.Fatal(err)
		}
	}
	r := newRemote(t)
	for i := range 3 {
		a.acceptRemoteFollower(alice, r.addUser("f"+strconv.Itoa(i)))
	}
	outbox := a.actor(alice) + "/outbox"
	_, _, coll := get(t, outbox, "application/activity+json")
	if coll["type"] != "OrderedCollection" || coll["totalItems"] != float64(25) || coll["first"] != outbox+"?page=1" {
		t.Fatalf("outbox = %v", coll)
	}
	_, _, p1 := get(t, outbox+"?page=1", "application/activity+json")
	items, _ := p1["orderedItems"].([]any)
	if len(items) != 20 || p1["next"] != outbox+"?page=2" || p1["prev"] != nil {
		t.Fatalf("page 1: %d items, next %v, prev %v", len(items), p1["next"], p1["prev"])
	}
	first := items[0].(map[string]any)
	if first["type"] != "Create" || first["object"].(map[string]any)["movieTitle"] != "Movie 24" {
		t.Errorf("first item = %v, want the Create of the newest review", first)
	}
	_, _, p2 := get(t, outbox+"?page=2", "application/activity+json")
	if items, _ := p2["orderedItems"].([]any); len(items) != 5 || p2["next"] != nil || p2["prev"] != outbox+"?page=1" {
		t.Errorf("page 2: %d items, next %v, prev %v", len(items), p2["next"], p2["prev"])
	}
	if status, _, _ := get(t, outbox+"?page=0", "application/activity+json"); status != 400 {
		t.Errorf("page 0 = %d, want 400", status)
	}
	_, _, followers := get(t, a.actor(alice)+"/followers?page=1", "application/activity+json")
	if items, _ := followers["orderedItems"].([]any); len(items) != 3 || followers["totalItems"] != float64(3) {
		t.Errorf("followers page = %v", followers)
	}
	_, _, following := get(t, a.actor(alice)+"/following", "application/activity+json")
	if following["totalItems"] != float64(0) {
		t.Errorf("following = %v", following)
	}

	// A watchlist entry: published through the outbound handler, then deleted.
	ext := "tt0078748"
	entry := domain.WatchlistEntryAdded{UserID: alice.ID, MovieID: domain.MovieIDFor(ext), MovieTitle: "Alien", ReleaseYear: 1979,
		ExternalMetadataID: &ext, AddedAt: domain.UnixFrom(1_700_000_000)}
	run(t, a, activitypub.OutboundHandler, "0190a000-0000-7000-8000-0000000000a1", entry)
	objectID := a.actor(alice) + "/watchlist/" + entry.MovieID.String()
	if status, _, note := get(t, objectID, "application/activity+json"); status != 200 || note["watchlistEntry"] != true {
		t.Errorf("watchlist entry = %d %v", status, note)
	}
	run(t, a, activitypub.OutboundHandler, "0190a000-0000-7000-8000-0000000000a2",
		domain.WatchlistEntryRemoved{UserID: alice.ID, MovieID: entry.MovieID})
	if status, _, doc := get(t, objectID, "application/activity+json"); status != http.StatusGone || doc["type"] != "Tombstone" {
		t.Errorf("deleted watchlist entry = %d %v, want 410 Tombstone", status, doc)
	}
}

// run calls one of the instance's federation handlers for an event.
func run(t *testing.T, in *instance, handler, eventID string, e domain.Event) {
	t.Helper()
	for _, h := range in.fed.Handlers() {
		if h.Name == handler {
			if err := h.Handle(context.Background(), envelope(eventID, e)); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no handler %s", handler)
}

// TestOpenAPIListsFederationRoutes: every federation route of the API contract is served and
// in the OpenAPI document.
func TestOpenAPIListsFederationRoutes(t *testing.T) {
	t.Parallel()
	a := newInstance(t, nil)
	_, _, doc := get(t, a.base+"/openapi.json", "")
	paths, _ := doc["paths"].(map[string]any)
	for _, want := range []struct{ method, path string }{
		{"get", "/.well-known/webfinger"}, {"get", "/.well-known/nodeinfo"}, {"get", "/nodeinfo/2.0"},
		{"get", "/users/{id}"}, {"post", "/inbox"}, {"post", "/users/{id}/inbox"}, {"get", "/users/{id}/outbox"},
		{"get", "/users/{id}/followers"}, {"get", "/users/{id}/following"}, {"get", "/reviews/{id}"},
		{"get", "/activities/{id}"}, {"get", "/users/{id}/watchlist/{movie_id}"},
	} {
		item, _ := paths[want.path].(map[string]any)
		if item[want.method] == nil {
			t.Errorf("OpenAPI has no %s %s", want.method, want.path)
		}
	}
}
