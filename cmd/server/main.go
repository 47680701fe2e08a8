// Command server is moviesdiary's HTTP process. It writes state and, in the same transactions,
// the events that state change causes; it never talks to the event bus itself. It migrates the
// database at start-up and shuts down gracefully on SIGTERM or SIGINT.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"moviesdiary/internal/adapters/httpapi"
	"moviesdiary/internal/adapters/metrics"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/storage"
	"moviesdiary/internal/adapters/tmdb"
	"moviesdiary/internal/app"
	"moviesdiary/internal/config"
	"moviesdiary/internal/usecase/movie"
)

func main() {
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintln(os.Stderr, "server: config:", err)
		os.Exit(2)
	}
	log := cfg.NewLogger(os.Stderr)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, cfg, log, nil); err != nil {
		log.Error("server stopped with an error", "error", err)
		os.Exit(1)
	}
}

// newAPI wires the API over the store from the configuration.
func newAPI(cfg config.Config, store *sqlite.Store, log *slog.Logger, ready httpapi.Readiness) (*httpapi.Server, error) {
	secret, generated, err := jwtSecret(cfg.JWTSecret, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	if generated {
		log.Info("generated a JWT secret; it is kept in the data directory", "file", secretFile)
	}
	var metadata movie.Metadata
	if cfg.TMDBAPIKey != "" {
		metadata = tmdb.New(cfg.TMDBAPIURL, cfg.TMDBAPIKey, nil)
	} else {
		log.Info("TMDB_API_KEY is not set: movies resolve from the database and the manual fields only")
	}
	serverMetrics := metrics.NewServer()
	serverMetrics.CountEnqueued(store, log)
	// The image directory lives as long as the process; the worker writes it, the server reads it.
	images, err := storage.OpenLocal(cfg.ImageDir())
	if err != nil {
		return nil, err
	}
	federation, err := newFederation(cfg, store, log)
	if err != nil {
		return nil, err
	}
	return app.NewAPI(store, app.Options{
		Log: log, Ready: ready, BaseURL: cfg.BaseURL, Secret: secret, Federation: federation,
		TokenTTL:          time.Duration(cfg.JWTTTLSeconds) * time.Second,
		RefreshTTL:        time.Duration(cfg.RefreshTTLSeconds) * time.Second,
		AllowRegistration: cfg.AllowRegistration, AuthRateLimit: cfg.RateLimit, Metadata: metadata,
		Images:  images,
		Metrics: serverMetrics,
	})
}

// run serves until ctx ends. When listening is non-nil it receives the bound address (tests
// listen on port 0).
func run(ctx context.Context, cfg config.Config, log *slog.Logger, listening chan<- string) error {
	path, err := cfg.DatabasePath()
	if err != nil {
		return err
	}
	store, err := sqlite.OpenMigrated(ctx, path, log)
	if err != nil {
		return err
	}
	defer store.Close()
	latest, err := sqlite.LatestVersion()
	if err != nil {
		return err
	}
	ready := func(ctx context.Context) error {
		v, dirty, err := store.Version(ctx)
		switch {
		case err != nil:
			return err
		case dirty:
			return fmt.Errorf("schema version %d is dirty", v)
		case v < latest:
			return fmt.Errorf("schema version %d, want %d", v, latest)
		}
		return nil
	}
	api, err := newAPI(cfg, store, log, ready)
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", cfg.Addr())
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{
		Handler:           api.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	log.Info("server listening", "addr", ln.Addr().String(), "database", path, "base_url", cfg.BaseURL)
	if listening != nil {
		listening <- ln.Addr().String()
	}
	pruneCtx, stopPrune := context.WithCancel(ctx)
	defer stopPrune()
	go pruneSessions(pruneCtx, store, log)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace)
	defer cancel()
	log.Info("server shutting down", "grace", cfg.ShutdownGrace.String())
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// pruneSessions deletes expired refresh sessions at start-up and then hourly.
func pruneSessions(ctx context.Context, store *sqlite.Store, log *slog.Logger) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		n, err := store.PruneSessions(ctx, time.Now())
		switch {
		case err != nil && ctx.Err() == nil:
			log.Error("refresh session prune failed", "error", err)
		case n > 0:
			log.Info("pruned expired refresh sessions", "sessions", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
