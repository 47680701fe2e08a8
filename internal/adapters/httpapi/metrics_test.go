package httpapi_test

import (
	"strings"
	"testing"
)

func TestMetricsCountRequestsByRoutePattern(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register("alice")
	id, _ := b.logReview(a, "Heat", 4, "2024-03-01")
	b.must(403, req{method: "DELETE", path: "/api/v1/reviews/" + id.String(), token: b.register("bob").token})
	body := string(b.must(200, req{method: "GET", path: "/metrics"}).body)
	for _, want := range []string{
		`moviesdiary_http_requests_total{method="POST",route="/api/v1/reviews",status="201"} 1`,
		`moviesdiary_http_requests_total{method="DELETE",route="/api/v1/reviews/{id}",status="403"} 1`,
		`moviesdiary_http_request_duration_seconds_count{method="POST",route="/api/v1/auth/login"} 2`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}
