package activitypub_test

import (
	"crypto/rand"
	"crypto/rsa"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"moviesdiary/internal/adapters/activitypub"
)

// TestRotatedKeyIsFetchedAgainOnce: a signature that fails with the cached key makes the inbox
// resolve the key once more (the sender rotated it) and accept the request; a request that
// still fails after that is refused without a third fetch.
func TestRotatedKeyIsFetchedAgainOnce(t *testing.T) {
	t.Parallel()
	var offset atomic.Int64
	a := newInstanceWith(t, func(cfg *activitypub.Config) {
		cfg.Now = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	})
	alice := a.user("alice")
	r := newFedi(t, flavors[0]) // Mastodon
	r.accepting(false)
	bob := r.addUser("bob")
	inbox := a.actor(alice) + "/inbox"
	if status, body := r.send(http.MethodPost, inbox, "bob", followOf(bob, a.actor(alice))); status != http.StatusAccepted {
		t.Fatalf("first Follow: %d %s", status, body)
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	r.keys["bob"] = key
	r.mu.Unlock()
	offset.Store(int64(time.Minute)) // the cached key is no longer moments old
	if status, body := r.send(http.MethodPost, inbox, "bob", followOf(bob, a.actor(alice))); status != http.StatusAccepted {
		t.Fatalf("Follow signed with the rotated key: %d %s", status, body)
	}
}

// TestKeyOwnerMustBeOnTheKeysHost: a Key object on one host that names an actor on another as
// its owner is not trusted, even when that actor claims the key: a host vouches only for its
// own actors.
func TestKeyOwnerMustBeOnTheKeysHost(t *testing.T) {
	t.Parallel()
	a := newInstance(t, nil)
	alice := a.user("alice")
	r := newFedi(t, flavors[4]) // signs with separate Key objects
	r.accepting(false)
	bob := r.addUser("bob")
	keyHost := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		writeJSONDoc(w, "application/activity+json", map[string]any{"id": "http://" + req.Host + req.URL.Path, "type": "Key",
			"owner": bob, "publicKeyPem": publicPEM(r.key("bob"))})
	}))
	t.Cleanup(keyHost.Close)
	r.fl.keyID = func(string) string { return keyHost.URL + "/keys/bob" }
	if status, _ := r.send(http.MethodPost, a.actor(alice)+"/inbox", "bob", followOf(bob, a.actor(alice))); status != http.StatusUnauthorized {
		t.Errorf("activity signed with a key on another host: %d, want 401", status)
	}
	if n := a.count(`SELECT count(*) FROM inbox_activities`); n != 0 {
		t.Errorf("%d activities stored", n)
	}
}

// TestSecureModeNeedsSignedGets: in secure mode an unsigned GET of an outbox or a collection is
// 401 and a signed one (by any flavor's key form) is served; actors and WebFinger stay public,
// since a server verifying our signatures needs them.
func TestSecureModeNeedsSignedGets(t *testing.T) {
	t.Parallel()
	a := newInstanceWith(t, func(cfg *activitypub.Config) { cfg.SecureMode = true })
	alice := a.user("alice")
	for _, path := range []string{"/outbox", "/followers", "/following"} {
		if err := getJSON(a.actor(alice)+path, "application/activity+json", &struct{}{}); err == nil {
			t.Errorf("unsigned GET of %s served in secure mode", path)
		}
	}
	if err := getJSON(a.actor(alice), "application/activity+json", &struct{}{}); err != nil {
		t.Errorf("unsigned GET of the actor: %v", err)
	}
	for _, fl := range []int{0, 1, 3} {
		r := newFedi(t, flavors[fl])
		r.addUser("bob")
		for _, path := range []string{"/outbox", "/outbox?page=1", "/followers"} {
			if status, body := r.send(http.MethodGet, a.actor(alice)+path, "bob", nil); status != http.StatusOK {
				t.Errorf("%s: signed GET of %s: %d %s", flavors[fl].name, path, status, body)
			}
		}
	}
}

// TestDeleteOfAGoneActor: a deleted account's server sends its Delete to every server it knew,
// signed with a key that went with the account. From an actor we never met it is acknowledged
// (202, nothing stored) instead of refused, so the sender stops retrying; from an actor we know
// (its key cached) it is verified and processed: its follows go.
func TestDeleteOfAGoneActor(t *testing.T) {
	t.Parallel()
	a := newInstance(t, nil)
	a.startWorker()
	alice := a.user("alice")
	r := newFedi(t, flavors[0])
	stranger, known := r.addUser("stranger"), r.addUser("known")
	a.acceptRemoteFollower(alice, known)
	r.mu.Lock()
	r.gone["stranger"], r.gone["known"] = true, true
	r.mu.Unlock()
	for _, actor := range []string{stranger, known} {
		name := actor[strings.LastIndex(actor, "/")+1:]
		del := map[string]any{"@context": "https://www.w3.org/ns/activitystreams", "id": actor + "#delete", "type": "Delete",
			"actor": actor, "object": actor, "to": []string{"https://www.w3.org/ns/activitystreams#Public"}}
		if status, body := r.send(http.MethodPost, a.base+"/inbox", name, del); status != http.StatusAccepted {
			t.Errorf("Delete of %s: %d %s", name, status, body)
		}
	}
	eventually(t, "the known actor's follow goes", func() bool {
		return a.settled() && a.count(`SELECT count(*) FROM follows`) == 0
	})
	if n := a.count(`SELECT count(*) FROM inbox_activities WHERE actor_url = ?`, stranger); n != 0 {
		t.Errorf("the stranger's Delete was stored")
	}
}
