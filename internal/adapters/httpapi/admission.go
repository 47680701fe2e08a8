package httpapi

import (
	"net/http"
	"runtime"
)

// readSlots bounds the GET requests being served at once: four per CPU, twice the store's read
// connections (a request also spends time outside SQLite, encoding and writing its answer).
// Past that, more concurrent reads only lengthen the scheduler's run queue, and the one writer
// (every commit waits on it) then waits behind a hundred readers at every step; waiting here
// instead, a read that is not running costs nothing and the writer is scheduled at once. A slot
// is held until the handler returns, which for these small answers is when they are in the
// socket's buffer, not when a slow client has read them.
func readSlots() int { return max(8, 4*runtime.GOMAXPROCS(0)) }

// admission lets at most cap(slots) reads through at once; the others wait their turn (or
// until their client goes away).
type admission struct{ slots chan struct{} }

func newAdmission(n int) *admission { return &admission{slots: make(chan struct{}, n)} }

// wrap bounds rt's requests when rt is a bounded read: a GET that is not a long download.
func (a *admission) wrap(rt route, h http.Handler) http.Handler {
	if rt.method != http.MethodGet || unboundedReads[rt.pattern] {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case a.slots <- struct{}{}:
		case <-r.Context().Done():
			return
		}
		defer func() { <-a.slots }()
		h.ServeHTTP(w, r)
	})
}

// unboundedReads stream for as long as the client reads (or wait on the client), so a slot
// held by one would be held for that long: they are not bounded.
// Liveness, readiness and metrics answer at once even when every slot is taken.
var unboundedReads = map[string]bool{"/api/v1/diary/export": true, "/images/*": true,
	"/health": true, "/ready": true, "/metrics": true}
