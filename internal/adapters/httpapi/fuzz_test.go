package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzReviewDecoding throws arbitrary bodies at POST /api/v1/reviews and PATCH
// /api/v1/reviews/{id}: whatever comes in, the answer is never a 500 (nor a panic), and every
// failure is the JSON envelope.
func FuzzReviewDecoding(f *testing.F) {
	for _, seed := range []string{
		`{"manual_title":"Heat","manual_release_year":1995,"rating":4,"watched_at":"2024-03-01"}`,
		`{"external_metadata_id":"tt0113277","rating":5,"watched_at":"2024-03-01T20:30:00Z","watch_medium":"cinema"}`,
		`{"external_metadata_id":"tmdb:949","manual_title":"Heat","manual_release_year":1995,"rating":5,"watched_at":"2024-03-01 20:30:00","comment":"x"}`,
		`{"rating":0,"watched_at":"2024-03-01"}`,
		`{"rating":6}`,
		`{"rating":-129,"watched_at":"9999-12-31T23:59"}`,
		`{"rating":4,"watched_at":"2024-02-30","watch_medium":"vhs"}`,
		`{"rating":1e400}`,
		`{"comment":null,"watch_medium":null}`,
		`{"rating":null}`,
		`{"manual_release_year":99999999999999999999,"rating":3,"watched_at":"2024-01-01"}`,
		`{"manual_title":"\u0000","manual_release_year":1888,"rating":3,"watched_at":"2024-01-01"}`,
		`[]`, `null`, `""`, `{`, `{"rating":`, `{} {}`, "\xff\xfe", ``,
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	b := setup(f)
	a := b.register("alice")
	id, _ := b.logReview(a, "Heat", 3, "2024-03-01")
	f.Fuzz(func(t *testing.T, body string, patch bool) {
		method, path := http.MethodPost, "/api/v1/reviews"
		if patch {
			method, path = http.MethodPatch, "/api/v1/reviews/"+id.String()
		}
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Authorization", "Bearer "+a.token)
		w := httptest.NewRecorder()
		b.handler.ServeHTTP(w, r)
		if w.Code >= 500 {
			t.Fatalf("%s %q = %d %s", method, body, w.Code, w.Body)
		}
		if w.Code >= 400 {
			response{status: w.Code, header: w.Header(), body: w.Body.Bytes()}.errorMessage(t)
		}
	})
}
