package activitypub_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/activitypub"
)

// follow is a Follow of object by actor with a fresh id.
func followOf(actor, object string) map[string]any {
	return map[string]any{"@context": "https://www.w3.org/ns/activitystreams", "id": actor + "/follows/" + uuid.NewString(),
		"type": "Follow", "actor": actor, "object": object}
}

// TestInboxChecksHeadersBeforeFetchingKeys: a POST whose Date is stale, whose Digest does not
// match or whose signature does not cover the digest is refused without fetching the key its
// keyId names (the original fetched first: any headered POST made us GET a URL of the caller's
// choice). A good one fetches the key once.
func TestInboxChecksHeadersBeforeFetchingKeys(t *testing.T) {
	t.Parallel()
	a := newInstance(t, nil)
	bob := a.user("bob")
	r := newRemote(t)
	eve := r.addUser("eve")
	inbox := a.actor(bob) + "/inbox"
	for name, c := range map[string]struct {
		date   time.Time
		mutate func(*http.Request)
	}{
		"stale date":   {date: time.Now().Add(-time.Hour)},
		"future date":  {date: time.Now().Add(time.Hour)},
		"wrong digest": {date: time.Now(), mutate: func(req *http.Request) { req.Header.Set("Digest", activitypub.Digest([]byte("other"))) }},
		"digest not signed": {date: time.Now(), mutate: func(req *http.Request) {
			req.Header.Set("Signature", strings.Replace(req.Header.Get("Signature"), " digest", "", 1))
		}},
		"unknown algorithm": {date: time.Now(), mutate: func(req *http.Request) {
			req.Header.Set("Signature", strings.Replace(req.Header.Get("Signature"), `algorithm="hs2019"`, `algorithm="ed25519"`, 1))
		}},
	} {
		if resp := r.signedPost(inbox, "eve", followOf(eve, a.actor(bob)), c.date, c.mutate); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: status %d, want 401", name, resp.StatusCode)
		}
		if n := r.fetches(); n != 0 {
			t.Fatalf("%s: the key was fetched %d times before the request's own checks", name, n)
		}
	}
	if resp := r.signedPost(inbox, "eve", followOf(eve, a.actor(bob)), time.Now(), nil); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("good request: status %d", resp.StatusCode)
	}
	if n := r.fetches(); n != 1 {
		t.Errorf("key fetched %d times, want 1", n)
	}
}

// TestRefusalsDoNotLeakFetchErrors: when the signer's key cannot be fetched (a closed port, an
// address the SSRF guard refuses) the inbox answers a fixed 401, and a follow of an unreachable
// handle a fixed 404: the fetch error (an address, a port, "connection refused") is only logged,
// so the answers are no port-scan oracle.
func TestRefusalsDoNotLeakFetchErrors(t *testing.T) {
	t.Parallel()
	guarded := newInstanceWith(t, func(cfg *activitypub.Config) { cfg.Client = activitypub.NewClient(activitypub.ClientConfig{}) })
	open := newInstance(t, nil)
	r := newRemote(t)
	eve := r.addUser("eve")
	for _, c := range []struct {
		in    *instance
		keyID string
	}{
		{guarded, "http://10.0.0.1/users/eve#main-key"},
		{open, "http://127.0.0.1:1/users/eve#main-key"},
	} {
		bob := c.in.user("bob")
		resp := r.signedPost(c.in.actor(bob)+"/inbox", "eve", followOf(eve, c.in.actor(bob)), time.Now(), func(req *http.Request) {
			req.Header.Set("Signature", replaceKeyID(req.Header.Get("Signature"), c.keyID))
		})
		body := readAll(t, resp)
		if resp.StatusCode != http.StatusUnauthorized || body != `{"error":"request signature could not be verified"}` {
			t.Errorf("key %s: %d %s, want 401 with the fixed message", c.keyID, resp.StatusCode, body)
		}
	}
	_, token := open.register("carol")
	status, body := open.call("POST", "/api/v1/social/follow", token, map[string]string{"handle": "bob@127.0.0.1:1"})
	if status != http.StatusNotFound || strings.Contains(string(body), "refused") || strings.Contains(string(body), "dial") {
		t.Errorf("follow of an unreachable handle: %d %s, want a 404 without the fetch error", status, body)
	}
}

// TestInboxRateLimitPerHost: each remote host has its own bucket, checked before any key
// fetch: a host over its burst is answered 429 while another host is still served.
func TestInboxRateLimitPerHost(t *testing.T) {
	t.Parallel()
	now := time.Now()
	a := newInstanceWith(t, func(cfg *activitypub.Config) {
		cfg.Now = func() time.Time { return now } // no refill: the burst is all there is
		cfg.InboxRate, cfg.InboxBurst = 1, 3
	})
	bob := a.user("bob")
	busy, quiet := newRemote(t), newRemote(t)
	eve, dan := busy.addUser("eve"), quiet.addUser("dan")
	for i := range 3 {
		if resp := busy.signedPost(a.actor(bob)+"/inbox", "eve", followOf(eve, a.actor(bob)), now, nil); resp.StatusCode != http.StatusAccepted {
			t.Fatalf("request %d within the burst: %d", i+1, resp.StatusCode)
		}
	}
	fetched := busy.fetches()
	resp := busy.signedPost(a.actor(bob)+"/inbox", "eve", followOf(eve, a.actor(bob)), now, nil)
	if body := readAll(t, resp); resp.StatusCode != http.StatusTooManyRequests || strings.Contains(body, "127.0.0.1") {
		t.Errorf("request over the burst: %d %s, want 429 with a fixed message", resp.StatusCode, body)
	}
	if busy.fetches() != fetched {
		t.Error("a limited request fetched a key")
	}
	if resp := quiet.signedPost(a.actor(bob)+"/inbox", "dan", followOf(dan, a.actor(bob)), now, nil); resp.StatusCode != http.StatusAccepted {
		t.Errorf("another host: %d, want 202", resp.StatusCode)
	}
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, _ := io.ReadAll(resp.Body)
	return strings.TrimSpace(string(b))
}

// TestMalformedKeyIDIsUnauthorized: a keyId that names no host is a bad signature (401), not a
// failure of ours.
func TestMalformedKeyIDIsUnauthorized(t *testing.T) {
	t.Parallel()
	a := newInstance(t, nil)
	bob := a.user("bob")
	r := newRemote(t)
	eve := r.addUser("eve")
	resp := r.signedPost(a.actor(bob)+"/inbox", "eve", followOf(eve, a.actor(bob)), time.Now(), func(req *http.Request) {
		req.Header.Set("Signature", replaceKeyID(req.Header.Get("Signature"), "main-key"))
	})
	if body := readAll(t, resp); resp.StatusCode != http.StatusUnauthorized || body != `{"error":"request signature could not be verified"}` {
		t.Errorf("keyId without a host: %d %s, want 401", resp.StatusCode, body)
	}
}
