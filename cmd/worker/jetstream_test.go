package main

import (
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"go.uber.org/goleak"
)

// natsServerGoroutines are the embedded NATS server's own goroutines that can outlive its
// shutdown: a stream whose creation the worker requested just before it stopped (a part failed
// at start) is created by the server's JetStream API while the server shuts down, and its file
// store's flush loop and the access-time ticker it registers are never stopped. They are the
// test's server's, not the worker's (production runs NATS as a server of its own), so the leak
// checks ignore them; under load a test run met them (19:12 on 2026-12-05).
var natsServerGoroutines = []goleak.Option{
	goleak.IgnoreAnyFunction("github.com/nats-io/nats-server/v2/server.(*fileStore).flushStreamStateLoop"),
	goleak.IgnoreAnyFunction("github.com/nats-io/nats-server/v2/server/ats.Register.func1"),
}

// startJetStream starts an embedded NATS server with JetStream on a free loopback port, stopped
// (and waited for) when the test ends.
func startJetStream(t *testing.T) *server.Server {
	t.Helper()
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats server not ready")
	}
	return ns
}
