// Package config reads both binaries' settings from the environment once, at start-up, and
// validates them so a bad value stops the process with one line naming the variable.
package config

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kelseyhightower/envconfig"

	"moviesdiary/internal/domain"
)

// Config is every setting of the server and the worker. Each field's env variable and default are
// listed in the README.
type Config struct {
	DataDir         string `envconfig:"DATA_DIR" default:"./data"`
	DatabaseURL     string `envconfig:"DATABASE_URL" secret:"true"`
	Host            string `envconfig:"HOST" default:"0.0.0.0"`
	Port            int    `envconfig:"PORT" default:"3000"`
	BaseURL         string `envconfig:"BASE_URL" default:"http://localhost:3000"`
	EventBusBackend string `envconfig:"EVENT_BUS_BACKEND" default:"db"`

	MaxAttempts int           `envconfig:"EVENT_QUEUE_MAX_ATTEMPTS" default:"5"`
	BatchSize   int           `envconfig:"EVENT_QUEUE_BATCH_SIZE" default:"100"`
	Concurrency int           `envconfig:"EVENT_QUEUE_CONCURRENCY" default:"16"`
	ClaimLease  time.Duration `envconfig:"EVENT_QUEUE_CLAIM_LEASE" default:"600s"`
	LedgerLease time.Duration `envconfig:"EVENT_QUEUE_LEDGER_LEASE" default:"1800s"`
	// BackoffBase scales the retry schedule. Production keeps domain.BackoffBase (5 s doubling,
	// capped at 300 s); another value is a test-only scale, accepted only with CHAOS_RECORD=1.
	BackoffBase   time.Duration `envconfig:"EVENT_QUEUE_BACKOFF_BASE" default:"5s"`
	ShutdownGrace time.Duration `envconfig:"SHUTDOWN_GRACE" default:"20s"`

	WorkerMetricsAddr string `envconfig:"WORKER_METRICS_ADDR" default:":9091"`
	// ServerMetricsAddr is where the server serves /metrics, apart from the public API port;
	// empty turns it off.
	ServerMetricsAddr string `envconfig:"SERVER_METRICS_ADDR" default:":9090"`

	// ChaosRecord and ChaosBreakLedger are for `make chaos` only: record every handler execution,
	// and (to prove the harness catches it) run without the ledger.
	ChaosRecord      bool `envconfig:"CHAOS_RECORD" default:"false"`
	ChaosBreakLedger bool `envconfig:"CHAOS_BREAK_LEDGER" default:"false"`

	LogLevel  string `envconfig:"LOG_LEVEL" default:"info"`
	LogFormat string `envconfig:"LOG_FORMAT" default:"json"`

	// NATS settings, used by the worker with EVENT_BUS_BACKEND=nats (the server never connects).
	NATSURL           string `envconfig:"NATS_URL" default:"nats://localhost:4222"`
	NATSMode          string `envconfig:"NATS_MODE" default:"jetstream"`
	NATSSubjectPrefix string `envconfig:"NATS_SUBJECT_PREFIX" default:"movies-diary.events"`
	NATSStreamName    string `envconfig:"NATS_STREAM_NAME" default:"MOVIES_DIARY_EVENTS"`
	NATSConsumerName  string `envconfig:"NATS_CONSUMER_NAME" default:"worker"`
	// NATSAckWait is how long JetStream waits for an ack (or an in-progress notice, sent while a
	// handler runs) before redelivering: what a killed worker's messages wait for.
	NATSAckWait time.Duration `envconfig:"NATS_ACK_WAIT" default:"60s"`
	// NATSStreamReplicas is how many servers of a JetStream cluster keep the stream.
	NATSStreamReplicas int `envconfig:"NATS_STREAM_REPLICAS" default:"1"`

	// Server: accounts and tokens.
	// RegistrationModeName is REGISTRATION_MODE (accounts.go); AllowRegistration the older
	// ALLOW_REGISTRATION, read only when REGISTRATION_MODE is unset.
	RegistrationModeName string `envconfig:"REGISTRATION_MODE"`
	AllowRegistration    string `envconfig:"ALLOW_REGISTRATION"`
	JWTSecret            string `envconfig:"JWT_SECRET" secret:"true"` // empty: generated once, kept in DATA_DIR/jwt_secret
	JWTTTLSeconds        int    `envconfig:"JWT_TTL_SECONDS" default:"900"`
	RefreshTTLSeconds    int    `envconfig:"REFRESH_TTL_SECONDS" default:"2592000"`
	RateLimit            int    `envconfig:"RATE_LIMIT" default:"60"` // auth requests per minute per IP
	// RequireTwoFactor makes every user turn two factors (TOTP) on before anything else.
	RequireTwoFactor bool `envconfig:"REQUIRE_TWO_FACTOR" default:"false"`

	// Movie metadata (TMDb) for the server's movie resolution; no key: movies resolve from the
	// database and the manual fields only.
	TMDBAPIKey string `envconfig:"TMDB_API_KEY" secret:"true"`
	TMDBAPIURL string `envconfig:"TMDB_API_URL" default:"https://api.themoviedb.org/3"`

	// FederationAllowPrivate lets federation requests reach loopback, private and link-local
	// addresses (tests, a private network of instances); off, the SSRF guard refuses them.
	FederationAllowPrivate bool `envconfig:"FEDERATION_ALLOW_PRIVATE" default:"false"`
	// FederationDeliveryConcurrency is how many federation deliveries the worker's delivery
	// lane sends at once, apart from the event handlers' slots; FederationDeliveryPerHost how
	// many of one host (docs/adr/0005-federation-delivery.md).
	FederationDeliveryConcurrency int `envconfig:"FEDERATION_DELIVERY_CONCURRENCY" default:"32"`
	FederationDeliveryPerHost     int `envconfig:"FEDERATION_DELIVERY_PER_HOST" default:"4"`
	// FederationDeliveryRate caps the lane's attempts per second, so a fan-out to thousands of
	// inboxes leaves the CPU for local work (each attempt signs with RSA): 0 is 100 per CPU,
	// negative is no cap.
	FederationDeliveryRate float64 `envconfig:"FEDERATION_DELIVERY_RATE" default:"0"`
	// FederationRetryWindow is how long a delivery that keeps failing while its host answers
	// others is retried before it is dead-lettered.
	FederationRetryWindow time.Duration `envconfig:"FEDERATION_RETRY_WINDOW" default:"48h"`
	// FederationHostUnavailableAfter is how long a host may answer nothing before its
	// deliveries are parked until it is seen alive again.
	FederationHostUnavailableAfter time.Duration `envconfig:"FEDERATION_HOST_UNAVAILABLE_AFTER" default:"48h"`
	// FederationSecureMode requires an HTTP signature on every GET of our outboxes, collections
	// and objects (Mastodon's authorized fetch); actors, WebFinger and NodeInfo stay public.
	FederationSecureMode bool `envconfig:"FEDERATION_SECURE_MODE" default:"false"`
	// FederationInboxRate and FederationInboxBurst limit the signed requests of one remote host
	// (a token bucket: requests a second, and the burst it may send at once).
	FederationInboxRate  float64 `envconfig:"FEDERATION_INBOX_RATE" default:"50"`
	FederationInboxBurst int     `envconfig:"FEDERATION_INBOX_BURST" default:"500"`

	Database   // PostgreSQL's pool (database.go)
	Media      // posters, images, enrichment (media.go)
	ImageStore // local directory or S3 bucket (images.go)

	Hardening // durability and client addresses (hardening.go)
	Web       // hosted web client, CORS (web.go)
	OIDC      // single sign-on (oidc.go)
	Mail      // SMTP, optional (mail.go)

	// secretFiles maps a secret read from its NAME_FILE (secrets.go) to that file, for Print.
	secretFiles map[string]string
}

// Load reads the configuration from the process's environment (envconfig, with the defaults in
// the struct tags; a secret from its NAME_FILE when that is set) and validates it. Only cmd/* call it, once at start-up; tests set the
// variables with t.Setenv first.
func Load() (Config, error) {
	var c Config
	if err := envconfig.Process("", &c); err != nil {
		return Config{}, cleanEnvconfigError(err)
	}
	if err := c.readSecretFiles(os.LookupEnv); err != nil {
		return Config{}, err
	}
	if err := c.validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

func (c Config) validate() error {
	switch {
	case c.DataDir == "":
		return fmt.Errorf("DATA_DIR: must not be empty")
	case c.Port < 1 || c.Port > 65535:
		return fmt.Errorf("PORT: %d is not a TCP port (1-65535)", c.Port)
	case !strings.HasPrefix(c.BaseURL, "http://") && !strings.HasPrefix(c.BaseURL, "https://"):
		return fmt.Errorf("BASE_URL: %q must start with http:// or https://", c.BaseURL)
	case c.EventBusBackend != "db" && c.EventBusBackend != "nats":
		return fmt.Errorf("EVENT_BUS_BACKEND: %q is not a backend (db or nats)", c.EventBusBackend)
	case c.MaxAttempts < 1:
		return fmt.Errorf("EVENT_QUEUE_MAX_ATTEMPTS: %d must be at least 1", c.MaxAttempts)
	case c.BatchSize < 1 || c.BatchSize > 1000:
		return fmt.Errorf("EVENT_QUEUE_BATCH_SIZE: %d must be between 1 and 1000", c.BatchSize)
	case c.Concurrency < 1 || c.Concurrency > 1024:
		return fmt.Errorf("EVENT_QUEUE_CONCURRENCY: %d must be between 1 and 1024", c.Concurrency)
	case c.ClaimLease < time.Second:
		return fmt.Errorf("EVENT_QUEUE_CLAIM_LEASE: %s must be at least 1s", c.ClaimLease)
	case c.LedgerLease < time.Second:
		return fmt.Errorf("EVENT_QUEUE_LEDGER_LEASE: %s must be at least 1s", c.LedgerLease)
	case c.BackoffBase != domain.BackoffBase && !c.ChaosRecord:
		return fmt.Errorf("EVENT_QUEUE_BACKOFF_BASE: %s would move the retry schedule off %s doubling (capped at %s); "+
			"it is a test-only scale, accepted only with CHAOS_RECORD=1", c.BackoffBase, domain.BackoffBase, domain.BackoffMax)
	case c.BackoffBase < time.Millisecond:
		return fmt.Errorf("EVENT_QUEUE_BACKOFF_BASE: %s must be at least 1ms", c.BackoffBase)
	case c.ShutdownGrace < 0:
		return fmt.Errorf("SHUTDOWN_GRACE: %s must not be negative", c.ShutdownGrace)
	case c.LogFormat != "json" && c.LogFormat != "text":
		return fmt.Errorf("LOG_FORMAT: %q is not a log format (json or text)", c.LogFormat)
	case c.registrationErr() != nil:
		return c.registrationErr()
	case c.JWTSecret != "" && len(c.JWTSecret) < 16:
		return fmt.Errorf("JWT_SECRET: must be at least 16 bytes (or unset to generate one)")
	case c.JWTTTLSeconds < 1:
		return fmt.Errorf("JWT_TTL_SECONDS: %d must be at least 1", c.JWTTTLSeconds)
	case c.RefreshTTLSeconds < 1:
		return fmt.Errorf("REFRESH_TTL_SECONDS: %d must be at least 1", c.RefreshTTLSeconds)
	case c.RateLimit < 1:
		return fmt.Errorf("RATE_LIMIT: %d must be at least 1", c.RateLimit)
	case !strings.HasPrefix(c.TMDBAPIURL, "http://") && !strings.HasPrefix(c.TMDBAPIURL, "https://"):
		return fmt.Errorf("TMDB_API_URL: %q must start with http:// or https://", c.TMDBAPIURL)
	}
	if _, err := c.Level(); err != nil {
		return err
	}
	if err := c.validateDatabase(); err != nil {
		return err
	}
	if err := c.validateMedia(); err != nil {
		return err
	}
	if err := c.validateImageStore(); err != nil {
		return err
	}
	if err := c.validateHardening(); err != nil {
		return err
	}
	if err := c.validateWeb(); err != nil {
		return err
	}
	if err := c.validateOIDC(); err != nil {
		return err
	}
	if err := c.validateMail(); err != nil {
		return err
	}
	return c.validateNATS()
}

// Level is LOG_LEVEL as a slog level.
func (c Config) Level() (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return 0, fmt.Errorf("LOG_LEVEL: %q is not a level (debug, info, warn, error)", c.LogLevel)
	}
	return l, nil
}

// DatabasePath is the SQLite file: DATABASE_URL as a plain path or sqlite:// URL, else
// moviesdiary.db inside DATA_DIR. A PostgreSQL URL is not a path (see PostgresURL).
func (c Config) DatabasePath() (string, error) {
	u := c.DatabaseURL
	if u == "" {
		return filepath.Join(c.DataDir, "moviesdiary.db"), nil
	}
	for _, prefix := range []string{"sqlite3://", "sqlite://", "sqlite:"} {
		if strings.HasPrefix(u, prefix) {
			u = strings.TrimPrefix(u, prefix)
			break
		}
	}
	if i := strings.IndexByte(u, '?'); i >= 0 {
		u = u[:i]
	}
	if u == "" || strings.Contains(u, "://") {
		return "", fmt.Errorf("DATABASE_URL: %q is not a SQLite path, a sqlite:// URL or a postgres:// URL", c.RedactedDatabaseURL())
	}
	return u, nil
}

// Addr is the server's listen address.
func (c Config) Addr() string { return fmt.Sprintf("%s:%d", c.Host, c.Port) }

// cleanEnvconfigError turns envconfig's "envconfig.Process: assigning X to Field: converting …"
// into "X: …".
func cleanEnvconfigError(err error) error {
	if pe, ok := err.(*envconfig.ParseError); ok {
		return fmt.Errorf("%s: cannot parse %q as %s", pe.KeyName, pe.Value, pe.TypeName)
	}
	return err
}

// NewLogger builds the slog logger LOG_LEVEL and LOG_FORMAT ask for, writing to w.
func (c Config) NewLogger(w io.Writer) *slog.Logger {
	level, _ := c.Level()
	opts := &slog.HandlerOptions{Level: level}
	if c.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}
