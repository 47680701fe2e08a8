package activitypub_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"moviesdiary/internal/adapters/activitypub"
	"moviesdiary/internal/domain"
)

// TestSSRFGuard: without FEDERATION_ALLOW_PRIVATE the client refuses loopback (and so private,
// link-local and multicast) addresses, permanently; with it, the same fetch works.
func TestSSRFGuard(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{}`)) }))
	t.Cleanup(srv.Close)
	ctx := context.Background()
	_, err := activitypub.NewClient(activitypub.ClientConfig{}).Get(ctx, srv.URL, "application/json", nil)
	if !errors.Is(err, activitypub.ErrForbiddenAddress) || !domain.IsPermanent(err) {
		t.Errorf("guarded fetch of %s: %v, want a permanent ErrForbiddenAddress", srv.URL, err)
	}
	for _, u := range []string{"http://10.0.0.1/x", "http://169.254.169.254/latest", "http://[::1]:1/x",
		"http://[64:ff9b::7f00:1]/x",  // NAT64 of 127.0.0.1
		"http://[2002:7f00:1::1]/x",   // 6to4 of 127.0.0.1
		"http://[::ffff:127.0.0.1]/x", // IPv4-mapped loopback
		"http://198.18.0.1/x", "http://240.0.0.1/x", "http://192.0.0.8/x", "http://0.1.2.3/x",
		"http://255.255.255.255/x", "http://100.64.0.1/x"} {
		_, err := activitypub.NewClient(activitypub.ClientConfig{Timeout: time.Second}).Get(ctx, u, "application/json", nil)
		if !errors.Is(err, activitypub.ErrForbiddenAddress) {
			t.Errorf("guarded fetch of %s: %v, want ErrForbiddenAddress", u, err)
		}
	}
	if _, err := activitypub.NewClient(activitypub.ClientConfig{}).Get(ctx, "file:///etc/passwd", "application/json", nil); err == nil {
		t.Error("a file: URL was fetched")
	}
	if _, err := activitypub.NewClient(activitypub.ClientConfig{AllowPrivate: true}).Get(ctx, srv.URL, "application/json", nil); err != nil {
		t.Errorf("fetch with private addresses allowed: %v", err)
	}
}

// TestResponseSizeLimit: a document over the limit is refused.
func TestResponseSizeLimit(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write(make([]byte, 2048)) }))
	t.Cleanup(srv.Close)
	c := activitypub.NewClient(activitypub.ClientConfig{AllowPrivate: true, MaxResponse: 1024})
	if _, err := c.Get(context.Background(), srv.URL, "application/json", nil); err == nil {
		t.Error("a 2 KiB answer passed a 1 KiB limit")
	}
}
