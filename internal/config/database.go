package config

import (
	"fmt"
	"net/url"
)

// Database sizes the PostgreSQL store's connection pool (per process; SQLite ignores it).
type Database struct {
	// DatabaseMaxConns bounds the open connections of one process; every server and worker
	// counts against PostgreSQL's max_connections (a worker adds one LISTEN connection).
	DatabaseMaxConns int `envconfig:"DATABASE_MAX_CONNS" default:"20"`
	// DatabaseMaxIdleConns is how many of them stay open while idle (at most DatabaseMaxConns;
	// zero: all of them, each closing after 5 minutes unused).
	DatabaseMaxIdleConns int `envconfig:"DATABASE_MAX_IDLE_CONNS" default:"0"`
}

// PostgresURL is DATABASE_URL when it names a PostgreSQL database (postgres:// or
// postgresql://): the binaries then use the PostgreSQL store, else SQLite (DatabasePath).
func (c Config) PostgresURL() (string, bool) {
	return c.DatabaseURL, isPostgres(c.DatabaseURL)
}

func isPostgres(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql")
}

// RedactedDatabaseURL is DATABASE_URL with its password hidden, for logs.
func (c Config) RedactedDatabaseURL() string {
	u, err := url.Parse(c.DatabaseURL)
	if err != nil {
		return ""
	}
	return u.Redacted()
}

func (c Config) validateDatabase() error {
	switch {
	case c.DatabaseMaxConns < 1:
		return fmt.Errorf("DATABASE_MAX_CONNS: %d must be at least 1", c.DatabaseMaxConns)
	case c.DatabaseMaxIdleConns < 0:
		return fmt.Errorf("DATABASE_MAX_IDLE_CONNS: %d must not be negative", c.DatabaseMaxIdleConns)
	}
	if isPostgres(c.DatabaseURL) {
		if u, _ := url.Parse(c.DatabaseURL); u.Host == "" && u.Query().Get("host") == "" {
			return fmt.Errorf("DATABASE_URL: %q names no host (postgres://user:password@host:5432/db)", c.RedactedDatabaseURL())
		}
		return nil
	}
	_, err := c.DatabasePath()
	return err
}
