package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// serveMetrics serves h at addr/metrics until ctx ends; an empty addr turns metrics off. A port
// that cannot be bound fails start-up rather than running blind.
func serveMetrics(ctx context.Context, addr string, h http.Handler, log *slog.Logger) error {
	if addr == "" {
		log.Info("worker metrics off (WORKER_METRICS_ADDR is empty)")
		return nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("WORKER_METRICS_ADDR: listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server stopped", "error", err)
		}
	}()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	log.Info("worker metrics listening", "addr", ln.Addr().String(), "path", "/metrics")
	return nil
}
