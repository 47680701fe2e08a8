package httpapi_test

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BenchmarkImport50k imports a 50,000-row Letterboxd diary (50,000 distinct movies, so every row
// also creates a movie and its events) over HTTP: upload, streamed preview, confirm. Besides the
// time per import it reports each phase's time, the confirm's CPU time, and the peak Go heap in use during the whole
// import, sampled every 5 ms: the file is streamed into the session and out of it, so the peak
// stays far below what holding 50,000 rows would take.
//
//	go test -tags sqlite_fts5 -run X -bench Import50k -benchtime 1x ./internal/adapters/httpapi
func BenchmarkImport50k(b *testing.B) {
	const rows = 50_000
	var csv strings.Builder
	csv.WriteString("Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date\n")
	for i := range rows {
		fmt.Fprintf(&csv, "2024-02-01,Film number %d,%d,https://boxd.it/%d,%d.5,,\"tag a, tag b\",2024-01-%02d\n", i, 1950+i%70, i, i%5, 1+i%28)
	}
	file := []byte(csv.String())
	for b.Loop() {
		b.StopTimer()
		bd := setup(b)
		alice := bd.register("alice")
		indices := make([]int, rows)
		for i := range indices {
			indices[i] = i
		}
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		stop := sampleHeap()
		b.StartTimer()

		t0 := time.Now()
		c := bd.upload(alice, "diary.csv", file, "")
		if c.status != 200 {
			b.Fatalf("upload = %d %s", c.status, c.body)
		}
		var s createdSession
		c.json(b, &s)
		t1 := time.Now()
		hr, _ := http.NewRequest("GET", bd.srv.URL+"/api/v1/import/sessions/"+s.SessionID+"/preview", nil)
		hr.Header.Set("Authorization", "Bearer "+alice.token)
		resp, err := bd.srv.Client().Do(hr)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		t2, cpu0 := time.Now(), cpuTime()
		got := bd.confirm(alice, s.SessionID, map[string]any{"confirmed_indices": indices})
		t3, cpu1 := time.Now(), cpuTime()
		b.StopTimer()
		if got.Imported != rows {
			b.Fatalf("imported %d of %d", got.Imported, rows)
		}
		p := stop()
		b.ReportMetric(float64(len(file))/(1<<20), "file-MiB")
		b.ReportMetric(t1.Sub(t0).Seconds(), "upload-s")
		b.ReportMetric(t2.Sub(t1).Seconds(), "preview-s")
		b.ReportMetric(float64(n)/(1<<20), "preview-MiB")
		b.ReportMetric(t3.Sub(t2).Seconds(), "confirm-s")
		b.ReportMetric((cpu1 - cpu0).Seconds(), "confirm-cpu-s")
		b.ReportMetric(float64(p)/(1<<20), "peak-heap-MiB")
		b.ReportMetric(float64(p-min(p, base.HeapInuse))/(1<<20), "peak-heap-growth-MiB")
		b.StartTimer()
	}
}

// cpuTime is the CPU time (user + system) this process has used: on a shared machine it
// varies far less than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sampleHeap samples HeapInuse until stop is called, which returns the highest value seen.
func sampleHeap() func() uint64 {
	var (
		mu   sync.Mutex
		peak uint64
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	read := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		mu.Lock()
		peak = max(peak, m.HeapInuse)
		mu.Unlock()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				read()
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		read()
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}
