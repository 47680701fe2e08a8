package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/domain"
)

// allVars lists every variable so each test starts from an empty environment.
var allVars = []string{"DATA_DIR", "DATABASE_URL", "HOST", "PORT", "BASE_URL", "EVENT_BUS_BACKEND",
	"EVENT_QUEUE_MAX_ATTEMPTS", "EVENT_QUEUE_BATCH_SIZE", "EVENT_QUEUE_CONCURRENCY", "EVENT_QUEUE_CLAIM_LEASE",
	"EVENT_QUEUE_LEDGER_LEASE", "EVENT_QUEUE_BACKOFF_BASE", "SHUTDOWN_GRACE", "LOG_LEVEL", "LOG_FORMAT",
	"CHAOS_RECORD", "CHAOS_BREAK_LEDGER", "DATABASE_MAX_CONNS", "DATABASE_MAX_IDLE_CONNS",
	"JWT_SECRET", "TMDB_API_KEY", "IMAGE_STORAGE", "IMAGE_S3_ENDPOINT", "IMAGE_S3_BUCKET", "IMAGE_S3_ACCESS_KEY", "IMAGE_S3_SECRET_KEY",
	"DATABASE_URL_FILE", "JWT_SECRET_FILE", "TMDB_API_KEY_FILE", "IMAGE_S3_ACCESS_KEY_FILE", "IMAGE_S3_SECRET_KEY_FILE",
	"SMTP_HOST", "SMTP_PORT", "SMTP_USERNAME", "SMTP_PASSWORD", "SMTP_PASSWORD_FILE", "SMTP_FROM", "SMTP_TLS", "SMTP_CA_FILE",
	"SMTP_INSECURE_SKIP_VERIFY", "NOTIFY_ADMINS_ON_REGISTRATION"}

func clearEnv(t *testing.T) {
	for _, v := range allVars {
		t.Setenv(v, "") // restores the old value after the test
		os.Unsetenv(v)
	}
}

func TestDefaults(t *testing.T) {
	clearEnv(t)
	c, err := Load()
	if err != nil {
		t.Fatalf("no variables at all must load: %v", err)
	}
	path, _ := c.DatabasePath()
	if c.DataDir != "./data" || path != filepath.Join("data", "moviesdiary.db") || c.Addr() != "0.0.0.0:3000" ||
		c.BaseURL != "http://localhost:3000" || c.EventBusBackend != "db" || c.MaxAttempts != 5 ||
		c.ClaimLease != 600*time.Second || c.LedgerLease != 1800*time.Second || c.BackoffBase != 5*time.Second ||
		c.LogFormat != "json" || c.LogLevel != "info" {
		t.Fatalf("defaults: %+v (db %s)", c, path)
	}
}

func TestDatabaseURLForms(t *testing.T) {
	for in, want := range map[string]string{
		"/var/lib/md.db":               "/var/lib/md.db",
		"sqlite:///var/lib/md.db":      "/var/lib/md.db",
		"sqlite://data/md.db?mode=rwc": "data/md.db",
		"sqlite:md.db":                 "md.db",
	} {
		got, err := Config{DatabaseURL: in}.DatabasePath()
		if err != nil || got != want {
			t.Errorf("%s → %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestBadValuesNameTheVariable(t *testing.T) {
	for v, val := range map[string]string{
		"EVENT_BUS_BACKEND":        "kafka",
		"EVENT_QUEUE_MAX_ATTEMPTS": "0",
		"EVENT_QUEUE_BATCH_SIZE":   "many",
		"PORT":                     "70000",
		"LOG_FORMAT":               "xml",
		"LOG_LEVEL":                "loud",
		"DATABASE_URL":             "mysql://db/md",
		"DATABASE_MAX_CONNS":       "0",
		"EVENT_QUEUE_CLAIM_LEASE":  "10ms",
		"BASE_URL":                 "localhost",
	} {
		clearEnv(t)
		t.Setenv(v, val)
		_, err := Load()
		if err == nil || !strings.HasPrefix(err.Error(), v+":") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s=%s: error %v; want one line starting with %q", v, val, err, v+":")
		}
	}
}

// TestBackoffBaseIsATestOnlyScale: the production retry schedule is 5 s doubling, capped at
// 300 s, and no environment can move it: EVENT_QUEUE_BACKOFF_BASE other than 5s is refused unless
// CHAOS_RECORD=1 marks the process as the chaos harness's.
func TestBackoffBaseIsATestOnlyScale(t *testing.T) {
	clearEnv(t)
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	var schedule []string
	for n := 1; n <= 8; n++ {
		schedule = append(schedule, domain.ScaledBackoff(c.BackoffBase, n).String())
	}
	if got, want := fmt.Sprint(schedule), "[5s 10s 20s 40s 1m20s 2m40s 5m0s 5m0s]"; got != want {
		t.Errorf("default retry schedule %s, want %s", got, want)
	}
	t.Setenv("EVENT_QUEUE_BACKOFF_BASE", "5s")
	if _, err := Load(); err != nil {
		t.Errorf("EVENT_QUEUE_BACKOFF_BASE=5s (the production value): %v", err)
	}
	for _, v := range []string{"1s", "10s", "10ms", "1h"} {
		t.Setenv("EVENT_QUEUE_BACKOFF_BASE", v)
		if _, err := Load(); err == nil || !strings.HasPrefix(err.Error(), "EVENT_QUEUE_BACKOFF_BASE:") {
			t.Errorf("EVENT_QUEUE_BACKOFF_BASE=%s without CHAOS_RECORD: error %v, want it refused", v, err)
		}
	}
	t.Setenv("CHAOS_RECORD", "1")
	t.Setenv("EVENT_QUEUE_BACKOFF_BASE", "200ms")
	if c, err := Load(); err != nil || c.BackoffBase != 200*time.Millisecond {
		t.Errorf("EVENT_QUEUE_BACKOFF_BASE=200ms with CHAOS_RECORD=1: %v, %v; want the test scale", c.BackoffBase, err)
	}
}

// TestDatabaseURLChoosesTheStore: a postgres:// or postgresql:// URL selects PostgreSQL, a path
// or sqlite:// URL (or nothing) SQLite, and the pool must be sane.
func TestDatabaseURLChoosesTheStore(t *testing.T) {
	for url, pg := range map[string]bool{
		"":                                  false,
		"/var/lib/md/db.sqlite":             false,
		"sqlite:///tmp/x.db":                false,
		"postgres://md:secret@db:5432/md":   true,
		"postgresql://md@db/md?sslmode=off": true,
		"postgres:///md?host=/run/postgres": true,
	} {
		clearEnv(t)
		t.Setenv("DATABASE_URL", url)
		c, err := Load()
		if err != nil {
			t.Fatalf("DATABASE_URL=%s: %v", url, err)
		}
		if _, got := c.PostgresURL(); got != pg {
			t.Errorf("DATABASE_URL=%s: PostgreSQL %v, want %v", url, got, pg)
		}
		if strings.Contains(c.RedactedDatabaseURL(), "secret") {
			t.Errorf("redacted URL %q shows the password", c.RedactedDatabaseURL())
		}
	}
	clearEnv(t)
	t.Setenv("DATABASE_URL", "postgres:///md")
	if _, err := Load(); err == nil || !strings.HasPrefix(err.Error(), "DATABASE_URL:") {
		t.Errorf("a URL with no host: %v", err)
	}
	clearEnv(t)
	t.Setenv("DATABASE_MAX_IDLE_CONNS", "-1")
	if _, err := Load(); err == nil || !strings.HasPrefix(err.Error(), "DATABASE_MAX_IDLE_CONNS:") {
		t.Errorf("a negative idle pool: %v", err)
	}
}
