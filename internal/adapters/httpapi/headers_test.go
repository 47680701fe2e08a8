package httpapi_test

import "testing"

// TestSecurityHeaders: every response says nosniff, no-referrer and no framing; a request with
// credentials and an auth route's response are no-store, a public read is not; HSTS only when
// BASE_URL is https.
func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register("alice")
	for _, r := range []req{
		{method: "GET", path: "/health"},
		{method: "GET", path: "/no/such/route"},
		{method: "GET", path: "/api/v1/settings", token: a.token},
	} {
		h := b.do(r).header
		for k, want := range map[string]string{
			"X-Content-Type-Options":  "nosniff",
			"Referrer-Policy":         "no-referrer",
			"X-Frame-Options":         "DENY",
			"Content-Security-Policy": "frame-ancestors 'none'",
		} {
			if got := h.Get(k); got != want {
				t.Errorf("%s %s: %s = %q, want %q", r.method, r.path, k, got, want)
			}
		}
		if h.Get("Strict-Transport-Security") != "" {
			t.Errorf("%s: HSTS over an http BASE_URL", r.path)
		}
	}
	if got := b.do(req{method: "GET", path: "/api/v1/settings", token: a.token}).header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("authenticated response: Cache-Control = %q, want no-store", got)
	}
	login := b.do(req{method: "POST", path: "/api/v1/auth/login",
		body: map[string]string{"email": "alice@example.test", "password": "password-alice"}})
	if got := login.header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("login response (tokens): Cache-Control = %q, want no-store", got)
	}
	if got := b.do(req{method: "GET", path: "/api/v1/diary"}).header.Get("Cache-Control"); got == "no-store" {
		t.Errorf("public read: Cache-Control = %q, want cacheable", got)
	}
	https := setup(t, options{baseURL: "https://diary.example"})
	if got := https.do(req{method: "GET", path: "/health"}).header.Get("Strict-Transport-Security"); got == "" {
		t.Error("https BASE_URL: no Strict-Transport-Security")
	}
}
