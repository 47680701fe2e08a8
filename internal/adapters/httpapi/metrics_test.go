package httpapi_test

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// scrape reads the API's request metrics as Prometheus serves them.
func (b *bundle) scrape() string {
	rec := httptest.NewRecorder()
	b.metrics.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return rec.Body.String()
}

func TestMetricsCountRequestsByRoutePattern(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register("alice")
	id, _ := b.logReview(a, "Heat", 4, "2024-03-01")
	b.must(403, req{method: "DELETE", path: "/api/v1/reviews/" + id.String(), token: b.register("bob").token})
	b.must(404, req{method: "GET", path: "/wp-login.php"})
	b.must(404, req{method: "GET", path: "/no/such/" + id.String()})
	b.must(405, req{method: "PUT", path: "/health"})
	body := b.scrape()
	for _, want := range []string{
		`moviesdiary_http_requests_total{method="POST",route="/api/v1/reviews",status="201"} 1`,
		`moviesdiary_http_requests_total{method="DELETE",route="/api/v1/reviews/{id}",status="403"} 1`,
		`moviesdiary_http_request_duration_seconds_count{method="POST",route="/api/v1/auth/login"} 2`,
		// Unrouted requests are counted under one label, never their path.
		`moviesdiary_http_requests_total{method="GET",route="unmatched",status="404"} 2`,
		`moviesdiary_http_requests_total{method="PUT",route="unmatched",status="405"} 1`,
		`moviesdiary_build_info{`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(body, "wp-login") {
		t.Error("a raw path became a label")
	}
}

// TestMetricsAreNotOnTheAPIPort: /metrics is served on SERVER_METRICS_ADDR by cmd/server, not
// on the public API.
func TestMetricsAreNotOnTheAPIPort(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.must(404, req{method: "GET", path: "/metrics"})
}
