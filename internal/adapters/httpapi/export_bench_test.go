package httpapi_test

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

// BenchmarkDiaryExport streams the export of a 10,000- and a 100,000-review diary over loopback
// and reports the peak heap in use while it runs: flat across sizes when the export streams.
//
//	go test -tags sqlite_fts5 -run '^$' -bench DiaryExport -benchtime 3x ./internal/adapters/httpapi/
func BenchmarkDiaryExport(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		for _, format := range []string{"csv", "json"} {
			b.Run(fmt.Sprintf("%d/%s", n, format), func(b *testing.B) { benchExport(b, n, "/api/v1/diary/export?format="+format) })
		}
	}
}

// BenchmarkAccountArchive streams the account archive (the diary twice, as CSV and JSON, in a
// zip) of a 10,000- and a 100,000-review account, reporting the peak heap as
// BenchmarkDiaryExport does: flat across sizes when the archive streams.
//
//	go test -tags sqlite_fts5 -run '^$' -bench AccountArchive -benchtime 3x ./internal/adapters/httpapi/
func BenchmarkAccountArchive(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchExport(b, n, "/api/v1/account/archive") })
	}
}

// benchExport fills a diary of n reviews and downloads path b.N times.
func benchExport(b *testing.B, n int, path string) {
	bd := setup(b)
	a := bd.register("alice")
	movie := uuid.New()
	bd.execSQL(`INSERT INTO movies (id, title, release_year, director) VALUES (?, 'Heat', 1995, 'Michael Mann')`, movie.String())
	tx, err := bd.db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	start := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		if _, err := tx.Exec(`INSERT INTO reviews (id, user_id, movie_id, rating, comment, watched_at) VALUES (?, ?, ?, 4, 'a fine comment, with a comma', ?)`,
			uuid.New().String(), a.id.String(), movie.String(), start.Add(time.Duration(i)*time.Hour).Format("2006-01-02T15:04:05.000Z")); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapInuse)
			}
		}
	})
	var bytes int64
	b.ResetTimer()
	for range b.N {
		r, _ := http.NewRequest("GET", bd.srv.URL+path, nil)
		r.Header.Set("Authorization", "Bearer "+a.token)
		resp, err := bd.srv.Client().Do(r)
		if err != nil {
			b.Fatal(err)
		}
		bytes, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("GET %s = %d", path, resp.StatusCode)
		}
	}
	b.StopTimer()
	close(stop)
	wg.Wait()
	b.ReportMetric(float64(peak-min(peak, base.HeapInuse))/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(bytes)/(1<<20), "body-MB")
}
