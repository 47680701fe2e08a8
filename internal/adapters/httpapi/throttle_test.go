package httpapi_test

import (
	"net/netip"
	"strconv"
	"testing"
)

// TestLoginIsThrottledPerAccount: guesses at one account from any address end in 429 with a
// Retry-After — even for the right password until the back-off ends — while other accounts log
// in as usual.
func TestLoginIsThrottledPerAccount(t *testing.T) {
	t.Parallel()
	b := setup(t, options{authRateLimit: 1000, trustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	b.register("alice")
	b.register("bob")
	wrong := map[string]string{"email": "alice@example.test", "password": "wrong-guess"}
	for i := range 5 {
		// Each guess from another address: the per-IP bucket alone would never stop them.
		b.must(401, req{method: "POST", path: "/api/v1/auth/login", body: wrong,
			header: map[string]string{"X-Forwarded-For": "203.0.113." + strconv.Itoa(i+1)}})
	}
	r := b.must(429, req{method: "POST", path: "/api/v1/auth/login", header: map[string]string{"X-Forwarded-For": "198.51.100.7"},
		body: map[string]string{"email": "alice@example.test", "password": "password-alice"}})
	r.errorMessage(t)
	if s, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || s < 1 || s > 30 {
		t.Errorf("Retry-After = %q, want 1..30 seconds", r.header.Get("Retry-After"))
	}
	b.must(200, req{method: "POST", path: "/api/v1/auth/login",
		body: map[string]string{"email": "bob@example.test", "password": "password-bob"}})
}

// TestForwardedForOnlyFromTrustedProxies: X-Forwarded-For keys the per-IP bucket only when the
// peer is a trusted proxy; otherwise a forged header does not buy a fresh bucket.
func TestForwardedForOnlyFromTrustedProxies(t *testing.T) {
	t.Parallel()
	body := map[string]string{"email": "nobody@example.test", "password": "password-x"}
	login := func(b *bundle, xff string) int {
		return b.do(req{method: "POST", path: "/api/v1/auth/login", body: body,
			header: map[string]string{"X-Forwarded-For": xff}}).status
	}
	untrusted := setup(t, options{authRateLimit: 2})
	login(untrusted, "203.0.113.1")
	login(untrusted, "203.0.113.2")
	if got := login(untrusted, "203.0.113.3"); got != 429 {
		t.Errorf("no trusted proxy: a forged X-Forwarded-For got %d, want 429 (the peer's bucket is spent)", got)
	}
	trusted := setup(t, options{authRateLimit: 2, trustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	login(trusted, "203.0.113.1")
	login(trusted, "203.0.113.1")
	if got := login(trusted, "203.0.113.1"); got != 429 {
		t.Errorf("trusted proxy, same client thrice: %d, want 429", got)
	}
	// The right-most untrusted hop is the client: a client-supplied left part changes nothing.
	if got := login(trusted, "10.9.9.9, 203.0.113.1"); got != 429 {
		t.Errorf("spoofed left-most hop: %d, want 429 (the client is still 203.0.113.1)", got)
	}
	if got := login(trusted, "203.0.113.2"); got != 401 {
		t.Errorf("trusted proxy, another client: %d, want 401 (its own bucket)", got)
	}
}
