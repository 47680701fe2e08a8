package web_test

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	newTokenField = regexp.MustCompile(`id="new-token" readonly value="([0-9a-f]{64})"`)
	deleteToken   = regexp.MustCompile(`action="(/settings/webhooks/[0-9a-f-]{36}/delete)"`)
	queueAction   = regexp.MustCompile(`action="/settings/queue/([0-9a-f-]{36})/confirm"`)
)

// webhook posts a media server's fixture to the API with the token in the query, as a media
// server configured with the page's URL does; replace rewrites the fixture (old, new, …).
func (b *bundle) webhook(provider, token, fixture string, replace ...string) {
	b.t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "usecase", "integration", "testdata", fixture))
	if err != nil {
		b.t.Fatal(err)
	}
	resp, err := http.Post(b.srv.URL+"/api/v1/webhooks/"+provider+"?token="+token, "application/json", strings.NewReader(strings.NewReplacer(replace...).Replace(string(raw))))
	if err != nil {
		b.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.t.Fatalf("webhook: %d", resp.StatusCode)
	}
}

func TestWebhookTokens(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	p := mustStatus(t, ann.get("/settings"), http.StatusOK)
	contains(t, p, `action="/settings/webhooks"`, `<label for="provider">`, `<option value="jellyfin">`,
		`<option value="plex">`, `<option value="emby">`, "No webhook tokens yet", "No watches waiting")

	p = mustStatus(t, ann.post("/settings/webhooks", url.Values{"provider": {"jellyfin"}, "label": {`<b>den</b>`}}), http.StatusOK)
	m := newTokenField.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no token shown; body:\n%s", excerpt(p.body))
	}
	contains(t, p, `value="http://diary.test/api/v1/webhooks/jellyfin"`, "only this once", "&lt;b&gt;den&lt;/b&gt;")
	lacks(t, p, "<b>den</b>")
	again := mustStatus(t, ann.get("/settings"), http.StatusOK)
	lacks(t, again, m[1], `id="new-token"`)
	contains(t, again, "&lt;b&gt;den&lt;/b&gt;", "never")

	bad := mustStatus(t, ann.post("/settings/webhooks", url.Values{"provider": {"kodi"}}), http.StatusBadRequest)
	contains(t, bad, `role="alert"`, "Unknown provider")

	// The token works: a watch posted with it waits in the queue.
	b.webhook("jellyfin", m[1], "jellyfin-movie-stop.json")
	contains(t, mustStatus(t, ann.get("/settings"), http.StatusOK), "<strong>Heat</strong> (1995)", "jellyfin")

	del := deleteToken.FindStringSubmatch(again.body)
	if del == nil {
		t.Fatal("no delete form")
	}
	// Another user cannot delete it, and a form without the token is refused.
	bob := b.register("bob")
	mustStatus(t, bob.post(del[1], nil), http.StatusNotFound)
	mustStatus(t, ann.post(del[1], url.Values{"csrf": {"forged"}}), http.StatusForbidden)
	p = mustStatus(t, ann.post(del[1], nil), http.StatusSeeOther)
	contains(t, mustStatus(t, ann.get(p.location()), http.StatusOK), "Webhook token deleted", "No webhook tokens yet")
	mustStatus(t, ann.post("/settings/webhooks", url.Values{"provider": {"plex"}, "csrf": {bob.csrf()}}), http.StatusForbidden)
}

func TestWatchQueueConfirmAndDismiss(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	p := mustStatus(t, ann.post("/settings/webhooks", url.Values{"provider": {"jellyfin"}}), http.StatusOK)
	jf := newTokenField.FindStringSubmatch(p.body)[1]
	p = mustStatus(t, ann.post("/settings/webhooks", url.Values{"provider": {"emby"}}), http.StatusOK)
	em := newTokenField.FindStringSubmatch(p.body)[1]
	b.webhook("jellyfin", jf, "jellyfin-movie-stop.json")
	b.webhook("emby", em, "emby-movie-stop.json", `"Heat"`, `"Ronin"`, "949", "8195", "tt0113277", "tt0122690")

	p = mustStatus(t, ann.get("/settings"), http.StatusOK)
	ids := queueAction.FindAllStringSubmatch(p.body, -1)
	if len(ids) != 2 {
		t.Fatalf("%d queued watches, want 2; body:\n%s", len(ids), excerpt(p.body))
	}
	first, second := ids[0][1], ids[1][1]
	mustStatus(t, ann.post("/settings/queue/"+first+"/confirm", url.Values{"rating": {"4"}, "csrf": {"forged"}}), http.StatusForbidden)
	mustStatus(t, ann.post("/settings/queue/"+first+"/confirm", url.Values{"rating": {"9"}}), http.StatusBadRequest)
	mustStatus(t, b.register("bob").post("/settings/queue/"+first+"/dismiss", nil), http.StatusForbidden)

	p = mustStatus(t, ann.post("/settings/queue/"+first+"/confirm", url.Values{"rating": {"4"}, "comment": {"<i>tense</i>"}}), http.StatusSeeOther)
	contains(t, mustStatus(t, ann.get(p.location()), http.StatusOK), "Watch logged as a review")
	diary := mustStatus(t, ann.get("/diary?view=list"), http.StatusOK)
	contains(t, diary, "&lt;i&gt;tense&lt;/i&gt;")
	lacks(t, diary, "<i>tense</i>")
	if n := b.Int(`SELECT COUNT(*) FROM reviews`); n != 1 {
		t.Errorf("%d reviews, want 1", n)
	}
	mustStatus(t, ann.post("/settings/queue/"+first+"/confirm", url.Values{"rating": {"4"}}), http.StatusConflict)

	mustStatus(t, ann.post("/settings/queue/"+second+"/dismiss", url.Values{"csrf": {"forged"}}), http.StatusForbidden)
	mustStatus(t, ann.post("/settings/queue/"+second+"/dismiss", nil), http.StatusSeeOther)
	contains(t, mustStatus(t, ann.get("/settings"), http.StatusOK), "No watches waiting")
	if n := b.Int(`SELECT COUNT(*) FROM reviews`); n != 1 {
		t.Errorf("%d reviews after the dismissal, want 1", n)
	}
}

// TestNavigationCountsTheWatchQueue: while watches wait in the queue (at the bottom of the
// settings) every page's navigation links it with their count; with none it says nothing.
func TestNavigationCountsTheWatchQueue(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	lacks(t, mustStatus(t, ann.get("/diary"), http.StatusOK), `href="/settings#queue"`)
	p := mustStatus(t, ann.post("/settings/webhooks", url.Values{"provider": {"jellyfin"}}), http.StatusOK)
	jf := newTokenField.FindStringSubmatch(p.body)[1]
	p = mustStatus(t, ann.post("/settings/webhooks", url.Values{"provider": {"emby"}}), http.StatusOK)
	em := newTokenField.FindStringSubmatch(p.body)[1]
	b.webhook("jellyfin", jf, "jellyfin-movie-stop.json")
	b.webhook("emby", em, "emby-movie-stop.json", `"Heat"`, `"Ronin"`, "949", "8195", "tt0113277", "tt0122690")
	for _, path := range []string{"/diary", "/log", "/settings"} {
		contains(t, mustStatus(t, ann.get(path), http.StatusOK),
			`<a href="/settings#queue">Watch queue <span class="badge">2<span class="sr"> waiting</span></span></a>`)
	}
	// Another user's queue is theirs: bob sees no count.
	lacks(t, mustStatus(t, b.register("bob").get("/diary"), http.StatusOK), `href="/settings#queue"`)
	ids := queueAction.FindAllStringSubmatch(mustStatus(t, ann.get("/settings"), http.StatusOK).body, -1)
	mustStatus(t, ann.post("/settings/queue/"+ids[0][1]+"/dismiss", nil), http.StatusSeeOther)
	contains(t, mustStatus(t, ann.get("/diary"), http.StatusOK), `Watch queue <span class="badge">1<span class="sr">`)
}
