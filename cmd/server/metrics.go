package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"moviesdiary/internal/httpserve"
)

// metricsServer serves the server's metrics at addr/metrics (SERVER_METRICS_ADDR), apart from the
// public API port so the internet never sees them; an empty addr turns metrics off.
type metricsServer struct {
	addr    string
	handler http.Handler
	log     *slog.Logger
}

// Run listens and serves until ctx ends, then shuts the server down and returns once it has
// stopped. A port that cannot be bound is an error naming SERVER_METRICS_ADDR: it stops the
// server rather than letting it run unobserved.
func (m metricsServer) Run(ctx context.Context) error {
	if m.addr == "" {
		m.log.Info("server metrics off (SERVER_METRICS_ADDR is empty)")
		return nil
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", m.addr)
	if err != nil {
		return fmt.Errorf("SERVER_METRICS_ADDR: listen on %s: %w", m.addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.handler)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	m.log.Info("server metrics listening", "addr", ln.Addr().String(), "path", "/metrics")
	if err := httpserve.Serve(ctx, srv, ln, 2*time.Second, m.log); err != nil {
		return fmt.Errorf("metrics server: %w", err)
	}
	return nil
}
