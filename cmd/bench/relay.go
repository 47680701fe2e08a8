package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"moviesdiary/internal/adapters/nats"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/outbox"
)

// relayResult is one relay run: how fast the outbox reached the stream.
type relayResult struct {
	rate    float64
	elapsed time.Duration
}

// relayBacklog measures the relay alone: a backlog of n outbox rows published to an embedded
// JetStream server (file storage) until every row is relayed, with the server's default fsync
// policy (sync_interval 2 min: PubAcks before the data is on disk) or sync_interval: always (an
// fsync before every PubAck, what deploy/nats.conf chooses). No consumer runs, so the figure is
// the relay's and the broker's.
func relayBacklog(ctx context.Context, dir, name string, n, payload int, syncAlways bool, log *slog.Logger) (relayResult, error) {
	opts := &server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: filepath.Join(dir, name+"-nats"),
		NoLog: true, NoSigs: true}
	if syncAlways {
		opts.SyncAlways = true
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return relayResult{}, err
	}
	ns.Start()
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	if !ns.ReadyForConnections(10 * time.Second) {
		return relayResult{}, fmt.Errorf("embedded nats-server not ready")
	}
	store, err := sqlite.OpenMigrated(ctx, filepath.Join(dir, name+".db"), log)
	if err != nil {
		return relayResult{}, err
	}
	defer store.Close()
	queue := store.Queue(outbox.QueueConfig{Logger: log})
	defer queue.Close()
	conn, err := nats.Dial(nats.ConnConfig{URL: ns.ClientURL(), Logger: log})
	if err != nil {
		return relayResult{}, err
	}
	defer conn.Close()
	js, err := jetstream.New(conn.NATS())
	if err != nil {
		return relayResult{}, err
	}
	const prefix = "bench.events"
	if _, err := nats.Setup(ctx, js, nats.SetupConfig{Stream: "BENCH", Consumer: "worker", Prefix: prefix, MaxDeliver: 5,
		MaxAge: 30 * 24 * time.Hour, Logger: log}); err != nil {
		return relayResult{}, err
	}
	relay, err := nats.NewRelay(conn, queue, nats.RelayConfig{Prefix: prefix, Logger: log})
	if err != nil {
		return relayResult{}, err
	}
	if err := enqueueBacklog(ctx, store, n, payload); err != nil {
		return relayResult{}, err
	}
	rctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	start := time.Now()
	wg.Go(func() { _ = relay.Run(rctx) })
	defer func() { cancel(); wg.Wait() }()
	deadline := start.Add(10 * time.Minute)
	for {
		counts, err := store.QueueCounts(ctx)
		if err != nil {
			return relayResult{}, err
		}
		if counts["relayed"] >= n {
			break
		}
		if time.Now().After(deadline) {
			return relayResult{}, fmt.Errorf("only %v relayed after 10 minutes", counts)
		}
		time.Sleep(time.Millisecond)
	}
	elapsed := time.Since(start)
	return relayResult{rate: float64(n) / elapsed.Seconds(), elapsed: elapsed}, nil
}
