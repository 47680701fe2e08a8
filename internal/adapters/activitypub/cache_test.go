package activitypub_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// TestPolledDocumentsCachedUntilACommit: the documents remote servers poll (an actor, an outbox
// page) are answered from the server's cache until something commits, per Accept header, and
// never for a signed fetch.
func TestPolledDocumentsCachedUntilACommit(t *testing.T) {
	t.Parallel()
	a := newInstance(t, nil)
	alice := a.user("alice")
	a.logReview(alice, 4)
	fetch := func(url, accept string, header ...string) (int, string, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Accept", accept)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var doc map[string]any
		_ = json.Unmarshal(body, &doc)
		return resp.StatusCode, resp.Header.Get("X-Cache"), doc
	}
	const ap = "application/activity+json"
	outbox := a.actor(alice) + "/outbox?page=1"
	if status, hit, doc := fetch(outbox, ap); status != 200 || hit != "" || doc["totalItems"] != float64(1) {
		t.Fatalf("first outbox read: %d, X-Cache %q, %v", status, hit, doc["totalItems"])
	}
	if status, hit, doc := fetch(outbox, ap); status != 200 || hit != "hit" || doc["totalItems"] != float64(1) {
		t.Errorf("second outbox read: %d, X-Cache %q, %v", status, hit, doc["totalItems"])
	}
	if _, hit, _ := fetch(outbox, ap, "Signature", `keyId="https://remote.example/actor#main-key"`); hit != "" {
		t.Errorf("a signed fetch was answered from the cache")
	}
	a.logReview(alice, 5)
	if status, hit, doc := fetch(outbox, ap); status != 200 || hit != "" || doc["totalItems"] != float64(2) {
		t.Errorf("outbox after a new review: %d, X-Cache %q, totalItems %v, want 2 fresh", status, hit, doc["totalItems"])
	}
	fetch(a.actor(alice), ap)
	if status, hit, doc := fetch(a.actor(alice), ap); status != 200 || hit != "hit" || doc["id"] != a.actor(alice) {
		t.Errorf("second actor read: %d, X-Cache %q, id %v", status, hit, doc["id"])
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest(http.MethodGet, a.actor(alice), nil)
	req.Header.Set("Accept", "text/html")
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("a browser got %d from the actor's cached JSON entry, want 303", resp.StatusCode)
	}
}
