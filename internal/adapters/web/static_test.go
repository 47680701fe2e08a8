package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestFaviconAndWebManifest: every page links an icon and a web manifest, both are served (the
// icon at /favicon.ico too, where browsers look unasked), the manifest names the app and its
// icon, and the pages' content policy lets the browser load it.
func TestFaviconAndWebManifest(t *testing.T) {
	t.Parallel()
	b := setup(t)
	br := b.browser()
	page := mustStatus(t, br.get("/login"), http.StatusOK)
	contains(t, page, `<link rel="icon" href="/static/icon.svg" type="image/svg+xml">`, `<link rel="manifest" href="/manifest.webmanifest">`)
	if csp := page.header.Get("Content-Security-Policy"); !strings.Contains(csp, "manifest-src 'self'") {
		t.Errorf("the content policy %q blocks the manifest", csp)
	}
	for _, path := range []string{"/static/icon.svg", "/favicon.ico"} {
		p := mustStatus(t, br.get(path), http.StatusOK)
		if ct := p.header.Get("Content-Type"); ct != "image/svg+xml" || !strings.HasPrefix(p.body, "<svg ") {
			t.Errorf("GET %s: %s %.40q", path, ct, p.body)
		}
	}
	p := mustStatus(t, br.get("/manifest.webmanifest"), http.StatusOK)
	if ct := p.header.Get("Content-Type"); ct != "application/manifest+json" {
		t.Errorf("manifest Content-Type %q", ct)
	}
	var m struct {
		Name  string
		Icons []struct{ Src, Type string }
	}
	if err := json.Unmarshal([]byte(p.body), &m); err != nil || m.Name != "moviesdiary" || len(m.Icons) == 0 || m.Icons[0].Src != "/static/icon.svg" {
		t.Errorf("manifest (%v): %s", err, p.body)
	}
	etag := p.header.Get("ETag")
	if p := br.get("/manifest.webmanifest", "If-None-Match", etag); etag == "" || p.status != http.StatusNotModified {
		t.Errorf("revalidation with ETag %q: %d", etag, p.status)
	}
}
