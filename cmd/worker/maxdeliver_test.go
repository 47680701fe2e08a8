package main

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"moviesdiary/internal/config"
	"moviesdiary/internal/delivery/deliverytest"
)

// TestJetStreamMaxDeliverIsMaxAttempts: the durable consumer the worker sets up redelivers an
// event at most EVENT_QUEUE_MAX_ATTEMPTS times (DESIGN.md, "JetStream"), so both backends give
// up after the same number of deliveries. It runs the worker from its configuration, as main
// does, with a value no other setting has by default (13: the default 5 would hide a literal, and
// the batch size, concurrency and replicas differ), and reads the consumer back from the server:
// whatever else cmd/worker wired into max_deliver fails it.
func TestJetStreamMaxDeliverIsMaxAttempts(t *testing.T) {
	const maxAttempts = 13
	ns := startJetStream(t)
	t.Setenv("EVENT_BUS_BACKEND", "nats")
	t.Setenv("NATS_URL", ns.ClientURL())
	t.Setenv("NATS_MODE", "jetstream")
	t.Setenv("EVENT_QUEUE_MAX_ATTEMPTS", strconv.Itoa(maxAttempts))
	t.Setenv("DATABASE_URL", filepath.Join(t.TempDir(), "md.db"))
	t.Setenv("DATA_DIR", t.TempDir())
	t.Setenv("WORKER_METRICS_ADDR", "")
	t.Setenv("LOG_LEVEL", "error")
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]int{"batch size": cfg.BatchSize, "concurrency": cfg.Concurrency, "replicas": cfg.NATSStreamReplicas} {
		if v == maxAttempts {
			t.Fatalf("the %s is %d too: a worker wiring it to max_deliver would pass", name, v)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, cfg, testLog(t), time.Now) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}()

	nc, err := natsgo.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	var info *jetstream.ConsumerInfo
	// The consumer is up once the worker pulls from it: setup is over, and stopping the worker
	// then is an ordinary shutdown.
	deliverytest.Eventually(t, waitLimit, "the worker pulling from its durable consumer", func() bool {
		c, err := js.Consumer(ctx, cfg.NATSStreamName, cfg.NATSConsumerName)
		if err != nil {
			return false
		}
		info, err = c.Info(ctx)
		return err == nil && info.NumWaiting > 0
	})
	if info.Config.MaxDeliver != maxAttempts {
		t.Errorf("consumer %s: max_deliver %d, want EVENT_QUEUE_MAX_ATTEMPTS %d", cfg.NATSConsumerName, info.Config.MaxDeliver, maxAttempts)
	}
}
