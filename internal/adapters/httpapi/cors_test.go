package httpapi_test

import (
	"net/http"
	"testing"
)

const preflightMethod = "Access-Control-Request-Method"

func TestCORSAnyOrigin(t *testing.T) {
	t.Parallel()
	b := setup(t)
	pre := b.do(req{method: "OPTIONS", path: "/api/v1/reviews", header: map[string]string{
		"Origin": "http://localhost:5173", preflightMethod: "POST", "Access-Control-Request-Headers": "content-type,authorization,idempotency-key"}})
	if pre.status != http.StatusNoContent {
		t.Fatalf("preflight = %d %s, want 204", pre.status, pre.body)
	}
	for k, want := range map[string]string{
		"Access-Control-Allow-Origin":      "*",
		"Access-Control-Allow-Methods":     "GET, POST, PUT, PATCH, DELETE, OPTIONS",
		"Access-Control-Allow-Headers":     "content-type, authorization, idempotency-key",
		"Access-Control-Allow-Credentials": "",
	} {
		if got := pre.header.Get(k); got != want {
			t.Errorf("preflight %s = %q, want %q", k, got, want)
		}
	}
	// The actual request, and an error answer, carry the origin header too.
	get := b.must(200, req{method: "GET", path: "/api/v1/activity-feed", header: map[string]string{"Origin": "http://a.test"}})
	if got := get.header.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("GET allow-origin = %q", got)
	}
	unauth := b.must(401, req{method: "GET", path: "/api/v1/watchlist", header: map[string]string{"Origin": "http://a.test"}})
	if got := unauth.header.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("401 allow-origin = %q", got)
	}
	// Not the API, and not a browser: nothing added.
	if h := b.must(200, req{method: "GET", path: "/health", header: map[string]string{"Origin": "http://a.test"}}).header; h.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("/health got CORS headers: %v", h)
	}
	if h := b.must(200, req{method: "GET", path: "/api/v1/activity-feed"}).header; h.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a request without Origin got CORS headers: %v", h)
	}
}

func TestCORSOriginList(t *testing.T) {
	t.Parallel()
	b := setup(t, options{corsOrigins: []string{"http://localhost:5173", "https://diary.example.org"}})
	pre := b.do(req{method: "OPTIONS", path: "/api/v1/diary/export", header: map[string]string{
		"Origin": "https://diary.example.org", preflightMethod: "GET"}})
	if pre.status != http.StatusNoContent || pre.header.Get("Access-Control-Allow-Origin") != "https://diary.example.org" ||
		pre.header.Get("Access-Control-Allow-Credentials") != "true" || pre.header.Get("Access-Control-Allow-Methods") == "" {
		t.Fatalf("listed origin preflight = %d %v", pre.status, pre.header)
	}
	if v := pre.header.Values("Vary"); len(v) == 0 || v[0] != "Origin" {
		t.Errorf("Vary = %v, want Origin first", v)
	}
	other := b.do(req{method: "OPTIONS", path: "/api/v1/reviews", header: map[string]string{
		"Origin": "https://evil.test", preflightMethod: "POST"}})
	if other.status != http.StatusNoContent || other.header.Get("Access-Control-Allow-Origin") != "" ||
		other.header.Get("Access-Control-Allow-Methods") != "" {
		t.Errorf("unlisted origin preflight = %d %v, want 204 without allow headers", other.status, other.header)
	}
	get := b.must(200, req{method: "GET", path: "/api/v1/activity-feed", header: map[string]string{"Origin": "http://localhost:5173"}})
	if get.header.Get("Access-Control-Allow-Origin") != "http://localhost:5173" || get.header.Get("Access-Control-Allow-Credentials") != "true" {
		t.Errorf("listed origin GET headers = %v", get.header)
	}
	// A plain OPTIONS (no preflight) is still routed: the API has no OPTIONS routes.
	if st := b.do(req{method: "OPTIONS", path: "/api/v1/reviews"}).status; st != http.StatusMethodNotAllowed {
		t.Errorf("plain OPTIONS = %d, want 405", st)
	}
}
