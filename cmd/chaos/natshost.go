package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
)

// natsHost runs an embedded JetStream server as this process (`chaos nats-host -port P -dir D`),
// so the harness can kill and restart it like a real nats-server without installing one.
func natsHost(args []string) int {
	fs := flag.NewFlagSet("nats-host", flag.ContinueOnError)
	port := fs.Int("port", 4222, "client port")
	dir := fs.String("dir", "", "JetStream store directory")
	if err := fs.Parse(args); err != nil || *dir == "" {
		fmt.Fprintln(os.Stderr, "usage: chaos nats-host -port P -dir D")
		return 2
	}
	srv, err := natsserver.NewServer(&natsserver.Options{
		Host: "127.0.0.1", Port: *port, JetStream: true, StoreDir: *dir, NoSigs: true,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "nats-host:", err)
		return 1
	}
	srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		fmt.Fprintln(os.Stderr, "nats-host: not ready")
		return 1
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	srv.Shutdown()
	srv.WaitForShutdown()
	return 0
}
