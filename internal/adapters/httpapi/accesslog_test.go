package httpapi_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

// syncBuffer is a bytes.Buffer the server's goroutines may write concurrently.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// accessLines returns the "http request" lines logged so far.
func accessLines(t *testing.T, out *syncBuffer) []map[string]any {
	t.Helper()
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line %q is not JSON: %v", sc.Text(), err)
		}
		if m["msg"] == "http request" {
			lines = append(lines, m)
		}
	}
	return lines
}

// TestAccessLogLinesCarryTheRouteNotTheRequest: one line per request with method, route pattern,
// status, duration and request id; no body, token, password, query or raw id from the path.
func TestAccessLogLinesCarryTheRouteNotTheRequest(t *testing.T) {
	t.Parallel()
	out := &syncBuffer{}
	b := setup(t, options{logOut: out})
	a := b.register("alice")
	id, _ := b.logReview(a, "Heat", 4, "2024-03-01")
	b.must(200, req{method: "GET", path: "/api/v1/movies?search=secret-query"})
	b.must(404, req{method: "GET", path: "/api/v1/reviews/" + id.String() + "/nope"})
	b.must(200, req{method: "HEAD", path: "/health"})

	lines := accessLines(t, out)
	byRoute := map[string]map[string]any{}
	for _, l := range lines {
		for _, k := range []string{"method", "route", "status", "duration_ms", "request_id", "bytes"} {
			if _, ok := l[k]; !ok {
				t.Errorf("access line %v lacks %s", l, k)
			}
		}
		if l["request_id"] == "" {
			t.Errorf("access line %v has an empty request id", l)
		}
		byRoute[l["method"].(string)+" "+l["route"].(string)] = l
	}
	for key, status := range map[string]float64{
		"POST /api/v1/auth/register": 201, "POST /api/v1/reviews": 201, "GET /api/v1/movies": 200,
		"GET unmatched": 404, "HEAD /health": 200,
	} {
		if l, ok := byRoute[key]; !ok || l["status"] != status {
			t.Errorf("no access line %s with status %v (lines: %v)", key, status, byRoute)
		}
	}
	logged := out.String()
	for _, secret := range []string{a.token, "password", "secret-query", id.String(), "Heat"} {
		if strings.Contains(logged, secret) {
			t.Errorf("the log contains %q", secret)
		}
	}
}
