package main

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"moviesdiary/internal/delivery/deliverytest"
)

// TestTMDbRateLimitIsWaitedOut: TMDb answering the worker's enrichment with 429 and a
// Retry-After does not spend the event's attempts towards a dead letter: the client waits and
// asks again, and the enrichment is done on its first delivery.
func TestTMDbRateLimitIsWaitedOut(t *testing.T) {
	w := newMediaWorld(t, map[string]string{"EVENT_QUEUE_MAX_ATTEMPTS": "2"})
	var limited atomic.Int32
	w.fake.SetOverride(func(rw http.ResponseWriter, r *http.Request) bool {
		if !strings.HasPrefix(r.URL.Path, "/3/movie/") || r.URL.Query().Get("append_to_response") != "credits,keywords" {
			return false
		}
		if limited.Add(1) > 3 {
			return false
		}
		rw.Header().Set("Retry-After", "1")
		rw.WriteHeader(http.StatusTooManyRequests)
		return true
	})
	w.logReview(t)
	var status string
	var attempts int
	deliverytest.Eventually(t, waitLimit, "MovieEnrichmentRequested settled", func() bool {
		_ = w.db.QueryRow(`SELECT status, attempts FROM event_queue WHERE event_type = 'MovieEnrichmentRequested'`).Scan(&status, &attempts)
		return status == "done" || status == "dead_lettered"
	})
	if status != "done" || attempts > 1 {
		t.Errorf("MovieEnrichmentRequested %s after %d attempts; want done on the first", status, attempts)
	}
	if n := limited.Load(); n < 4 {
		t.Errorf("enrichment calls = %d, want three 429s and a success", n)
	}
	var profiles int
	_ = w.db.QueryRow(`SELECT count(*) FROM movie_profiles`).Scan(&profiles)
	if profiles != 1 {
		t.Errorf("profiles = %d, want 1", profiles)
	}
}
