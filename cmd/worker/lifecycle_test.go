package main

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"moviesdiary/internal/config"
	"moviesdiary/internal/delivery"
)

// idleSource has nothing to deliver: Wait blocks until the pump stops, and says when.
type idleSource struct {
	waiting chan struct{} // closed at the first Wait: the pump is running
	once    sync.Once
	record  func(string)
}

func (s *idleSource) Claim(context.Context, int) ([]delivery.Message, error) { return nil, nil }
func (s *idleSource) Settle(context.Context, []delivery.Result) error        { return nil }
func (s *idleSource) Wait(ctx context.Context) error {
	s.once.Do(func() { close(s.waiting) })
	<-ctx.Done()
	s.record("pump stopped waiting")
	return nil
}

// TestServeStopsEveryPartWhenOneFails: a part that fails while the pump runs stops the pump and
// every other part; serve and stop return its error; the drain parts stop only after the pump.
func TestServeStopsEveryPartWhenOneFails(t *testing.T) {
	var mu sync.Mutex
	var events []string
	record := func(e string) { mu.Lock(); events = append(events, e); mu.Unlock() }
	engine, err := delivery.NewEngine(delivery.Config{Logger: testLog(t)}, brokenLedger{})
	if err != nil {
		t.Fatal(err)
	}
	src := &idleSource{waiting: make(chan struct{}), record: record}
	boom := errors.New("boom")
	w := startWorker(context.Background(), config.Config{BatchSize: 10, Concurrency: 2, ShutdownGrace: time.Second},
		testLog(t), time.Now, engine,
		func(ctx context.Context) error { <-ctx.Done(); record("early part stopped"); return nil })
	done := make(chan error, 1)
	go func() {
		done <- w.stop(w.serve(src,
			[]part{func(context.Context) error { <-src.waiting; return boom }},
			[]part{func(ctx context.Context) error { <-ctx.Done(); record("drain part stopped"); return nil }}))
	}()
	select {
	case err := <-done:
		if !errors.Is(err, boom) {
			t.Errorf("serve = %v, want the failed part's error", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the worker kept going after a part failed")
	}
	mu.Lock()
	defer mu.Unlock()
	for _, e := range []string{"early part stopped", "pump stopped waiting", "drain part stopped"} {
		if !slices.Contains(events, e) {
			t.Errorf("%q missing from %v", e, events)
		}
	}
	if slices.Index(events, "drain part stopped") < slices.Index(events, "pump stopped waiting") {
		t.Errorf("the drain part stopped before the pump: %v", events)
	}
}
