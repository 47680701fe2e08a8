package httpapi_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
)

// BenchmarkLogReview measures POST /api/v1/reviews over loopback HTTP with parallel clients,
// with the outbox (each review commits its events in its transaction) and with the enqueue
// removed, for a movie already known (one event per review) and a new movie each time (three).
// Compare the req/s metric of outbox against no-outbox:
//
//	go test -tags sqlite_fts5 -run '^$' -bench LogReview -benchtime 5s ./internal/adapters/httpapi/
func BenchmarkLogReview(b *testing.B) {
	for _, movie := range []string{"known-movie", "new-movie"} {
		for _, outbox := range []bool{true, false} {
			name := movie + "/outbox"
			if !outbox {
				name = movie + "/no-outbox"
			}
			b.Run(name, func(b *testing.B) { benchLogReview(b, movie == "new-movie", outbox) })
		}
	}
}

func benchLogReview(b *testing.B, newMovie, outbox bool) {
	bd := setup(b)
	if !outbox {
		bd.skipEnqueue.Store(true)
	}
	a := bd.register("alice")
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	defer client.CloseIdleConnections()
	var seq atomic.Int64
	b.SetParallelism(4) // 4 clients per CPU
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n := seq.Add(1)
			body := `{"manual_title":"Heat","manual_release_year":1995,"rating":4,"watched_at":"2024-03-01"}`
			if newMovie {
				body = fmt.Sprintf(`{"external_metadata_id":"tmdb:%d","manual_title":"Movie %d","manual_release_year":1995,"rating":4,"watched_at":"2024-03-01"}`, n, n)
			}
			req, _ := http.NewRequest(http.MethodPost, bd.srv.URL+"/api/v1/reviews", bytes.NewBufferString(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+a.token)
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}
