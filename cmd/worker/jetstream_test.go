package main

import (
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

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
