package nats

import (
	"sync"
	"testing"
	"time"

	"moviesdiary/internal/delivery/deliverytest"
)

// TestRelayReportsPauseAndResume: RelayConfig.Paused hears true when publishing fails (the stream
// is missing) and false once it works again — what moviesdiary_relay_paused shows.
func TestRelayReportsPauseAndResume(t *testing.T) {
	t.Parallel()
	log, _ := newLogger(t)
	conn := dial(t, embeddedServer(t), log)
	js := newJetStream(t, conn)
	store := openStore(t)
	db := rawDB(t, store)
	enqueue(t, store, 3)
	var mu sync.Mutex
	var seen []bool
	last := func() (bool, int) {
		mu.Lock()
		defer mu.Unlock()
		if len(seen) == 0 {
			return false, 0
		}
		return seen[len(seen)-1], len(seen)
	}
	startRelay(t, conn, store, RelayConfig{Logger: log, BackoffBase: 50 * time.Millisecond, AckTimeout: 2 * time.Second,
		Paused: func(p bool) { mu.Lock(); seen = append(seen, p); mu.Unlock() }})
	deliverytest.Eventually(t, 20*time.Second, "the relay reports a pause", func() bool { p, _ := last(); return p })

	setup(t, js, 3, 0, log) // the stream appears
	deliverytest.Eventually(t, 20*time.Second, "rows relayed and the resume reported", func() bool {
		p, n := last()
		return !p && n > 1 && queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status = 'relayed'`) == 3
	})
}
