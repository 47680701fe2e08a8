package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestAdmissionBoundsConcurrentReads: no more reads run at once than there are slots, the others
// run as slots free up, a waiting read whose client has gone is dropped, and writes and the
// unbounded reads never wait.
func TestAdmissionBoundsConcurrentReads(t *testing.T) {
	t.Parallel()
	a := newAdmission(2)
	var running, peak atomic.Int64
	release := make(chan struct{})
	h := a.wrap(route{method: http.MethodGet, pattern: "/api/v1/diary"}, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		n := running.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		<-release
		running.Add(-1)
	}))
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() { h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/api/v1/diary", nil)) })
	}
	deadline := time.Now().Add(10 * time.Second)
	for running.Load() < 2 {
		if time.Now().After(deadline) {
			t.Fatal("two reads never ran")
		}
		time.Sleep(time.Millisecond)
	}
	// A read whose client gives up while waiting returns without running.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/api/v1/diary", nil).WithContext(ctx))
	// Writes and unbounded reads are not held back by the full slots.
	for _, rt := range []route{{method: http.MethodPost, pattern: "/api/v1/reviews"}, {method: http.MethodGet, pattern: "/health"}} {
		ran := false
		a.wrap(rt, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { ran = true })).
			ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(rt.method, rt.pattern, nil))
		if !ran {
			t.Errorf("%s %s waited for a read slot", rt.method, rt.pattern)
		}
	}
	close(release)
	wg.Wait()
	if peak.Load() != 2 {
		t.Errorf("%d reads ran at once, want 2", peak.Load())
	}
}
