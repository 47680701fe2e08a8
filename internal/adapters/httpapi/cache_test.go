package httpapi_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"
)

// TestHotReadsCachedUntilACommit: a hot public read is served from the cache until something
// commits to the database — a review through the API, or another process's write straight to
// the tables — and never to an authenticated caller or for an error.
func TestHotReadsCachedUntilACommit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	b.logReview(alice, "Heat", 4, "2024-01-02")
	get := func(path, token string) response {
		t.Helper()
		return b.must(200, req{method: "GET", path: path, token: token})
	}
	first := get("/feed.rss", "")
	if first.header.Get("X-Cache") != "" || !strings.Contains(string(first.body), "Heat") {
		t.Fatalf("first read: X-Cache %q, body %s", first.header.Get("X-Cache"), first.body)
	}
	again := get("/feed.rss", "")
	if again.header.Get("X-Cache") != "hit" || string(again.body) != string(first.body) ||
		again.header.Get("Content-Type") != first.header.Get("Content-Type") {
		t.Fatalf("second read: X-Cache %q, Content-Type %q, same body %v", again.header.Get("X-Cache"),
			again.header.Get("Content-Type"), string(again.body) == string(first.body))
	}
	if atom := get("/feed.atom", ""); atom.header.Get("X-Cache") != "" {
		t.Errorf("another document came from the first one's entry")
	}

	b.logReview(alice, "Ronin", 3, "2024-02-01")
	if r := get("/feed.rss", ""); r.header.Get("X-Cache") != "" || !strings.Contains(string(r.body), "Ronin") {
		t.Errorf("after a review through the API: X-Cache %q, Ronin in the feed %v", r.header.Get("X-Cache"), strings.Contains(string(r.body), "Ronin"))
	}
	get("/feed.rss", "")
	// Another process (the worker enriching a movie) writes on its own connection.
	b.execSQL(`UPDATE movies SET title = 'Heat (1995)' WHERE title = 'Heat'`)
	if r := get("/feed.rss", ""); r.header.Get("X-Cache") != "" || !strings.Contains(string(r.body), "Heat (1995)") {
		t.Errorf("after another connection's commit: X-Cache %q, new title %v", r.header.Get("X-Cache"), strings.Contains(string(r.body), "Heat (1995)"))
	}
	if r := get("/feed.rss", alice.token); r.header.Get("X-Cache") != "" {
		t.Errorf("an authenticated read was served from the cache")
	}
	missing := "/users/" + uuid.NewString() + "/feed.rss"
	for range 2 {
		if r := b.do(req{method: "GET", path: missing}); r.status != 404 || r.header.Get("X-Cache") != "" {
			t.Errorf("unknown user's feed: %d, X-Cache %q", r.status, r.header.Get("X-Cache"))
		}
	}
}
