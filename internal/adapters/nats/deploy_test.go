package nats

import (
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// TestDeployConfigIsDurable: deploy/nats.conf parses as nats-server reads it, fsyncs before every
// PubAck, bounds the store above the stream's own max_bytes, and starts a JetStream server.
func TestDeployConfigIsDurable(t *testing.T) {
	t.Parallel()
	opts, err := server.ProcessConfigFile("../../../deploy/nats.conf")
	if err != nil {
		t.Fatal(err)
	}
	if !opts.JetStream || !opts.SyncAlways {
		t.Fatalf("jetstream %t, sync always %t; want both", opts.JetStream, opts.SyncAlways)
	}
	if opts.JetStreamMaxStore <= StreamMaxBytes {
		t.Fatalf("max_file_store %d is not above the stream's max_bytes %d", opts.JetStreamMaxStore, int64(StreamMaxBytes))
	}
	opts.StoreDir, opts.Host, opts.Port, opts.HTTPPort = t.TempDir(), "127.0.0.1", -1, 0
	opts.NoLog, opts.NoSigs = true, true
	ns, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	if !ns.ReadyForConnections(10*time.Second) || !ns.JetStreamEnabled() {
		t.Fatal("the deploy configuration does not start a JetStream server")
	}
}
