package httpapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BenchmarkImport50k imports a Letterboxd diary of 10,000 and of 50,000 rows (as many distinct
// movies, so every row also creates a movie) over HTTP: upload, streamed preview, confirm. It
// reports each phase's time, the confirm's CPU time (steadier than the wall clock on a shared
// machine), and per phase the peak growth of the live Go heap (as of each collection, sampled
// every 5 ms) over the live heap before the import; plus the peak heap in use, which the GC
// lets reach about twice the live heap, the benchmark's own copy of the file included. The
// upload's growth stays flat with the rows; the preview's and the confirm's grow by the
// per-row duplicate keys and index lists only (tens of bytes a row).
//
//	go test -tags sqlite_fts5 -run X -bench Import50k -benchtime 1x ./internal/adapters/httpapi
func BenchmarkImport50k(b *testing.B) {
	// 10,000 rows beside 50,000: what grows with the rows shows.
	for _, rows := range []int{10_000, 50_000} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) { benchmarkImport(b, rows) })
	}
}

func benchmarkImport(b *testing.B, rows int) {
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
		base := readHeap()
		stop := sampleHeap()
		b.StartTimer()

		t0 := time.Now()
		s := streamUpload(b, bd, alice, "diary.csv", file)
		t1 := time.Now()
		peakUpload := stop()
		stop = sampleHeap()
		hr, _ := http.NewRequest("GET", bd.srv.URL+"/api/v1/import/sessions/"+s.SessionID+"/preview", nil)
		hr.Header.Set("Authorization", "Bearer "+alice.token)
		resp, err := bd.srv.Client().Do(hr)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		peakPreview := stop()
		stop = sampleHeap()
		t2, cpu0 := time.Now(), cpuTime()
		got := bd.confirm(alice, s.SessionID, map[string]any{"confirmed_indices": indices})
		t3, cpu1 := time.Now(), cpuTime()
		b.StopTimer()
		if got.Imported != rows {
			b.Fatalf("imported %d of %d", got.Imported, rows)
		}
		peakConfirm := stop()
		mib := func(v uint64) float64 { return float64(v) / (1 << 20) }
		grown := func(h heapSample) float64 { return mib(h.live - min(h.live, base.live)) }
		b.ReportMetric(grown(peakUpload), "upload-live-MiB")
		b.ReportMetric(grown(peakPreview), "preview-live-MiB")
		b.ReportMetric(grown(peakConfirm), "confirm-live-MiB")
		b.ReportMetric(mib(max(peakUpload.inUse, peakPreview.inUse, peakConfirm.inUse)), "peak-heap-inuse-MiB")
		b.ReportMetric(float64(len(file))/(1<<20), "file-MiB")
		b.ReportMetric(t1.Sub(t0).Seconds(), "upload-s")
		b.ReportMetric(t2.Sub(t1).Seconds(), "preview-s")
		b.ReportMetric(float64(n)/(1<<20), "preview-MiB")
		b.ReportMetric(t3.Sub(t2).Seconds(), "confirm-s")
		b.ReportMetric((cpu1 - cpu0).Seconds(), "confirm-cpu-s")
		b.StartTimer()
	}
}

// streamUpload posts file as a multipart upload written as it is sent (chunked), so the
// client holds no second copy of the file and the peak heap is the server's.
func streamUpload(b *testing.B, bd *bundle, a account, name string, file []byte) createdSession {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		fw, err := mw.CreateFormFile("file", name)
		if err == nil {
			_, err = fw.Write(file)
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	hr, _ := http.NewRequest("POST", bd.srv.URL+"/api/v1/import/sessions", pr)
	hr.Header.Set("Content-Type", mw.FormDataContentType())
	hr.Header.Set("Authorization", "Bearer "+a.token)
	resp, err := bd.srv.Client().Do(hr)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var s createdSession
	if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&s) != nil {
		b.Fatalf("upload = %d", resp.StatusCode)
	}
	return s
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

// heapSample is the heap in use (live objects and garbage not yet collected, which the GC's
// pacing lets grow to about twice the live heap) and the live heap as of the last collection.
type heapSample struct{ inUse, live uint64 }

func readHeap() heapSample {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	return heapSample{inUse: m.HeapInuse, live: live[0].Value.Uint64()}
}

// sampleHeap samples the heap until stop is called, which returns the highest values seen.
func sampleHeap() func() heapSample {
	var (
		mu   sync.Mutex
		peak heapSample
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	read := func() {
		h := readHeap()
		mu.Lock()
		peak.inUse, peak.live = max(peak.inUse, h.inUse), max(peak.live, h.live)
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
	return func() heapSample {
		close(done)
		wg.Wait()
		read()
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}
