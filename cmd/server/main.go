// Command server is moviesdiary's HTTP process. It writes state and, in the same transactions,
// the events that state change causes; it never talks to the event bus itself. It migrates the
// database at start-up and shuts down gracefully on SIGTERM or SIGINT.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"moviesdiary/internal/httpserve"

	"golang.org/x/sync/errgroup"

	"moviesdiary/internal/adapters/httpapi"
	"moviesdiary/internal/adapters/metrics"
	"moviesdiary/internal/adapters/storage"
	"moviesdiary/internal/adapters/tmdb"
	"moviesdiary/internal/app"
	"moviesdiary/internal/buildinfo"
	"moviesdiary/internal/config"
	"moviesdiary/internal/maintenance"
	"moviesdiary/internal/usecase/auth"
	"moviesdiary/internal/usecase/movie"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	code := cli(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// newAPI wires the site (web pages in front of the API) over the store from the configuration.
func newAPI(ctx context.Context, cfg config.Config, db *database, images storage.Store, log *slog.Logger, ready httpapi.Readiness, serverMetrics *metrics.Server) (*app.Site, error) {
	secret, generated := []byte(cfg.JWTSecret), false
	if len(secret) == 0 {
		var err error
		if secret, generated, err = db.secret(ctx); err != nil {
			return nil, fmt.Errorf("JWT secret: %w", err)
		}
	}
	if generated {
		log.Info("generated a JWT secret and kept it for the next starts (JWT_SECRET or JWT_SECRET_FILE overrides it)", "where", db.secretWhere)
	}
	store := db.Store
	var (
		metadata movie.Metadata
		cdn      string // the provider's image CDN, for the log form's search results
	)
	if cfg.TMDBAPIKey != "" {
		cdn = cfg.TMDBImageURL
		metadata = tmdb.New(cfg.TMDBAPIURL, cfg.TMDBAPIKey, nil)
	} else {
		log.Info("TMDB_API_KEY is not set: movies resolve from the database and the manual fields only")
	}
	serverMetrics.CountEnqueued(store, log)
	serverMetrics.WatchDisk(cfg.DataDir, log)
	federation, err := newFederation(cfg, store, log)
	if err != nil {
		return nil, err
	}
	if err := serverMetrics.Register(federation.Collector()); err != nil {
		return nil, err
	}
	trusted, err := cfg.TrustedProxyPrefixes()
	if err != nil {
		return nil, err
	}
	signOn, err := newSignOn(cfg, log)
	if err != nil {
		return nil, err
	}
	auth.PrepareLogins()
	return app.NewSite(store, app.Options{
		Log: log, Ready: ready, BaseURL: cfg.BaseURL, Secret: secret, Federation: federation,
		TrustedProxies: trusted,
		TokenTTL:       time.Duration(cfg.JWTTTLSeconds) * time.Second,
		RefreshTTL:     time.Duration(cfg.RefreshTTLSeconds) * time.Second,
		Registration:   cfg.Registration(), AuthRateLimit: cfg.RateLimit, Metadata: metadata,
		Mail:             cfg.MailEnabled(),
		RequireTwoFactor: cfg.RequireTwoFactor,
		MetadataImageURL: cdn,
		Images:           images,
		Metrics:          serverMetrics,

		CORSOrigins: cfg.AllowedOrigins(), WebClientDir: cfg.WebClientDir,
		// A hosted client (WEB_CLIENT_DIR) takes "/"; otherwise the web pages' home page answers it.
		RootToClient: cfg.WebClientDir != "",
		// Single sign-on (OIDC_*), nil when OIDC_ISSUER is unset.
		SignOn: signOn,
	})
}

// openImages opens the image store IMAGE_STORAGE names. It lives as long as the process; the
// worker writes it, the server serves it and stores uploads in it. A bucket that is missing or
// refuses the credentials stops the start here.
func openImages(ctx context.Context, cfg config.Config, log *slog.Logger) (storage.Store, error) {
	c := storage.Config{Kind: cfg.ImageStorage, Dir: cfg.ImageDir(), S3: storage.S3Config{
		Endpoint: cfg.S3Endpoint, Bucket: cfg.S3Bucket, Region: cfg.S3Region, AccessKey: cfg.S3AccessKey,
		SecretKey: cfg.S3SecretKey, PathStyle: cfg.S3PathStyle, Timeout: cfg.S3Timeout,
	}}
	images, err := storage.Open(ctx, c)
	if err != nil {
		return nil, err
	}
	if c.Kind == storage.KindS3 {
		log.Info("images are kept in S3", "endpoint", c.S3.Endpoint, "bucket", c.S3.Bucket)
	}
	return images, nil
}

// run serves until ctx ends or a part fails, and returns once every part has stopped, with the
// first part's error. now is the clock of every part. When listening is non-nil it receives the
// bound address (tests listen on port 0).
func run(ctx context.Context, cfg config.Config, log *slog.Logger, now func() time.Time, listening chan<- string) error {
	db, err := openDatabase(ctx, cfg, log, now)
	if err != nil {
		return err
	}
	defer db.Close()
	store, latest := db.Store, db.latest
	serverMetrics := metrics.NewServer()
	images, err := openImages(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer images.Close()
	ready := func(ctx context.Context) error {
		// Not ready while the database or its directory has no room for writes: they would fail.
		// Each failure says what is down (httpapi.NotReady) and keeps the cause for the log only:
		// a driver's error names the database user, its name and its socket.
		if err := store.CheckWritable(ctx); err != nil {
			return httpapi.NotReady("the database is not writable", err)
		}
		v, dirty, err := store.Version(ctx)
		switch {
		case err != nil:
			return httpapi.NotReady("the database is unreachable", err)
		case dirty:
			return httpapi.NotReady(fmt.Sprintf("schema version %d is dirty", v), nil)
		case v < latest:
			return httpapi.NotReady(fmt.Sprintf("schema version %d, want %d", v, latest), nil)
		}
		// Images on S3 (or a mounted directory) may go away while the database stays.
		if err := images.Ping(ctx); err != nil {
			return httpapi.NotReady("the image store is unreachable", err)
		}
		return nil
	}
	api, err := newAPI(ctx, cfg, db, images, log, ready, serverMetrics)
	if err != nil {
		return err
	}
	// No registration makes a stranger the admin: while there is none, each start logs a
	// one-time link that creates one (or the operator runs `server admin users create --admin`).
	link, err := api.API.Auth.SetupLink(ctx, cfg.BaseURL)
	if err != nil {
		return fmt.Errorf("setup link: %w", err)
	}
	if link != "" {
		log.Warn("no admin yet: open this one-time link to create the admin account (or run `server admin users create --admin`)",
			"setup_link", link, "expires_in", auth.InviteTTLDefault.String())
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
	log.Info("server listening", "version", buildinfo.Version(), "addr", ln.Addr().String(), "database", db.where,
		"base_url", cfg.BaseURL, "metrics_addr", cfg.ServerMetricsAddr)
	if listening != nil {
		listening <- ln.Addr().String()
	}
	// Every long-lived part runs in this group, joined before the deferred store.Close: the HTTP
	// server and, at start and hourly, the pruning of expired refresh sessions and import
	// sessions and the resumption of import confirms a crash interrupted (idempotent, so every
	// server runs them, without a lease). A part that fails cancels the others; its error is
	// returned.
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return httpserve.Serve(gctx, srv, ln, cfg.ShutdownGrace, log) })
	metricsSrv := httpserve.Metrics{Addr: cfg.ServerMetricsAddr, Env: "SERVER_METRICS_ADDR", Handler: serverMetrics.Handler(), Log: log}
	g.Go(func() error { return metricsSrv.Run(gctx) })
	pruner := maintenance.NewRunner(maintenance.RunnerConfig{Interval: time.Hour, Logger: log, Now: now},
		maintenance.NewSessionPruner(store, maintenance.JobConfig{Logger: log, Now: now}),
		maintenance.NewImportCleaner(store, maintenance.JobConfig{Logger: log, Now: now}),
		maintenance.NewImportResumer(api.API.Imports, maintenance.JobConfig{Logger: log, Now: now}))
	g.Go(func() error { return pruner.Run(gctx) })
	return g.Wait()
}
