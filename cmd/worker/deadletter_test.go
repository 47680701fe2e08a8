package main

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/config"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/domain"
)

// TestDeadLettersAgreeOnEveryBackend runs the whole worker on the three backends with a handler
// that fails permanently until it is fixed: every failed event is dead-lettered in the outbox
// (what `worker events list` shows), the dead-letter counter and the queue gauge agree with the
// table, and an operator's retry delivers each again, once fixed, to done.
func TestDeadLettersAgreeOnEveryBackend(t *testing.T) {
	for _, backend := range []string{"db", "jetstream", "core"} {
		t.Run(backend, func(t *testing.T) {
			path, metricsAddr := workerEnv(t, backend)
			cfg, err := config.Load()
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			broken, first := true, ""
			runs := map[string]int{}
			poison := delivery.Handler{Name: "poison", Types: []string{"SearchReindexRequested"},
				Handle: func(_ context.Context, e delivery.Envelope) error {
					mu.Lock()
					defer mu.Unlock()
					runs[e.EventID]++
					if first == "" {
						first = e.EventID
					}
					if broken && e.EventID != first {
						return domain.Permanent(errors.New("remote answered 410 Gone"))
					}
					return nil
				}}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- run(ctx, cfg, testLog(t), time.Now, poison) }()
			stopped := false
			t.Cleanup(func() { // a failed wait must not leave the worker running into the next test
				if !stopped {
					cancel()
					<-done
				}
			})
			store := sqlitetest.Open(t, path)
			// A first event succeeds (in core mode it also shows the subscription is up).
			if err := store.Enqueue(context.Background(), domain.SearchReindexRequested{}); err != nil {
				t.Fatal(err)
			}
			deliverytest.Eventually(t, waitLimit, "the first event handled", func() bool { mu.Lock(); defer mu.Unlock(); return len(runs) == 1 })
			const failing = 3
			for range failing {
				if err := store.Enqueue(context.Background(), domain.SearchReindexRequested{}); err != nil {
					t.Fatal(err)
				}
			}
			deliverytest.Eventually(t, waitLimit, "every failed event dead-lettered in the outbox", func() bool {
				rows, err := store.ListEvents(context.Background(), "dead_lettered", "", 100)
				return err == nil && len(rows) == failing
			})
			deliverytest.Eventually(t, waitLimit, "the counter and the gauge agree with the table", func() bool {
				m := scrape(t, metricsAddr)
				return m[`moviesdiary_deliveries_total{handler="poison",outcome="dead_lettered"}`] == failing &&
					m[`moviesdiary_queue_events{status="dead_lettered"}`] == failing
			})
			mu.Lock()
			broken = false
			mu.Unlock()
			if n, err := store.RetryEvents(context.Background(), nil, ""); err != nil || n != failing {
				t.Fatalf("retry: %d rows, %v", n, err)
			}
			deliverytest.Eventually(t, waitLimit, "every retried event done", func() bool {
				counts, err := store.QueueCounts(context.Background())
				return err == nil && counts["done"] == failing+1 && counts["dead_lettered"] == 0
			})
			cancel()
			stopped = true
			if err := <-done; err != nil {
				t.Fatalf("run: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			for id, n := range runs {
				want := 2 // failed, then retried
				if id == first {
					want = 1
				}
				if n != want {
					t.Errorf("event %s handled %d times, want %d", id, n, want)
				}
			}
		})
	}
}

// freeAddr is a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// scrape reads the worker's metrics as series → value.
func scrape(t *testing.T, addr string) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err == nil {
			out[line[:i]] = v
		}
	}
	return out
}
