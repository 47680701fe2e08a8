package httpserve

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Metrics serves a Prometheus handler at Addr/metrics, apart from any public port so the
// internet never sees it; an empty Addr turns it off. Env names the variable Addr comes from,
// for the log line and the error of a port that cannot be bound.
type Metrics struct {
	Addr    string
	Env     string
	Handler http.Handler
	Log     *slog.Logger
}

// Run listens and serves until ctx ends, then shuts the server down and returns once it has
// stopped. A port that cannot be bound is an error naming Env: it stops the binary rather than
// letting it run unobserved.
func (m Metrics) Run(ctx context.Context) error {
	if m.Addr == "" {
		m.Log.Info("metrics off (" + m.Env + " is empty)")
		return nil
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", m.Addr)
	if err != nil {
		return fmt.Errorf("%s: listen on %s: %w", m.Env, m.Addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	m.Log.Info("metrics listening", "addr", ln.Addr().String(), "path", "/metrics")
	if err := Serve(ctx, srv, ln, 2*time.Second, m.Log); err != nil {
		return fmt.Errorf("metrics server: %w", err)
	}
	return nil
}
