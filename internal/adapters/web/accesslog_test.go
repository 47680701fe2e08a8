package web_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
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

// TestPagesAreLoggedAndCountedByRoute: page loads, form posts, the stylesheet and the HTML 404
// page each get one access line and one count under their route pattern, never the raw path;
// a request the pages hand to the API is logged and counted once, by the API.
func TestPagesAreLoggedAndCountedByRoute(t *testing.T) {
	t.Parallel()
	out := &syncBuffer{}
	b := setup(t, options{logOut: out})
	br := b.register("alice")
	br.logReview("Heat", "1995", 4, "a secret comment")
	diary := mustStatus(t, br.get("/diary"), http.StatusOK)
	m := editLink.FindStringSubmatch(diary.body)
	if m == nil {
		t.Fatal("no edit link on the diary")
	}
	id := m[1]
	mustStatus(t, br.get("/review/"+id+"/edit"), http.StatusOK)
	mustStatus(t, br.post("/review/"+id+"/edit", url.Values{"rating": {"5"}, "watched_at": {"2024-03-02"},
		"comment": {"a secret comment"}, "medium": {"cinema"}}), http.StatusSeeOther)
	mustStatus(t, br.get("/static/style.css"), http.StatusOK)
	mustStatus(t, br.get("/no/such/"+id, "Accept", "text/html"), http.StatusNotFound)
	mustStatus(t, br.get("/health"), http.StatusOK)

	counts := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		var l map[string]any
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("log line %q is not JSON: %v", sc.Text(), err)
		}
		if l["msg"] != "http request" {
			continue
		}
		for _, k := range []string{"method", "route", "status", "duration_ms", "request_id", "bytes"} {
			if _, ok := l[k]; !ok {
				t.Errorf("access line %v lacks %s", l, k)
			}
		}
		counts[l["method"].(string)+" "+l["route"].(string)+" "+jsonInt(l["status"])]++
	}
	for key, want := range map[string]int{
		"POST /register 303": 1, "POST /log 303": 1, "GET /diary 200": 1,
		"GET /review/{id}/edit 200": 1, "POST /review/{id}/edit 303": 1,
		"GET /static/style.css 200": 1, "GET unmatched 404": 1, "GET /health 200": 1,
	} {
		if counts[key] != want {
			t.Errorf("%d access lines %q, want %d (lines: %v)", counts[key], key, want, counts)
		}
	}
	if logged := out.String(); strings.Contains(logged, id) || strings.Contains(logged, "secret comment") {
		t.Error("the access log carries a raw id or a form value")
	}

	rec := httptest.NewRecorder()
	b.metrics.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		`moviesdiary_http_requests_total{method="POST",route="/register",status="303"} 1`,
		`moviesdiary_http_requests_total{method="GET",route="/diary",status="200"} 1`,
		`moviesdiary_http_requests_total{method="GET",route="/review/{id}/edit",status="200"} 1`,
		`moviesdiary_http_requests_total{method="POST",route="/review/{id}/edit",status="303"} 1`,
		`moviesdiary_http_requests_total{method="GET",route="/static/style.css",status="200"} 1`,
		`moviesdiary_http_requests_total{method="GET",route="unmatched",status="404"} 1`,
		`moviesdiary_http_requests_total{method="GET",route="/health",status="200"} 1`,
		`moviesdiary_http_request_duration_seconds_count{method="GET",route="/diary"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(body, id) {
		t.Error("a raw path became a label")
	}
}

// jsonInt is a JSON number as its decimal text.
func jsonInt(v any) string {
	f, _ := v.(float64)
	return strconv.Itoa(int(f))
}
