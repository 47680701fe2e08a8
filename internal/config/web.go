package config

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Web is the server's settings for browser clients: the web client it hosts and the origins
// that may call its API from elsewhere.
type Web struct {
	// WebClientDir is a built single-page client (its index.html at the top) served at /app/;
	// empty serves none, and / answers a short page about the server instead.
	WebClientDir string `envconfig:"WEB_CLIENT_DIR"`
	// CORSOrigins lists the origins allowed to call /api/v1 from a browser, comma-separated
	// (with credentials); empty or "*" allows any origin without credentials.
	CORSOrigins string `envconfig:"CORS_ORIGINS"`
}

// AllowedOrigins is CORS_ORIGINS as a list: nil for any origin.
func (c Config) AllowedOrigins() []string {
	raw := strings.TrimSpace(c.CORSOrigins)
	if raw == "" || raw == "*" {
		return nil
	}
	var out []string
	for o := range strings.SplitSeq(raw, ",") {
		if o = strings.TrimRight(strings.TrimSpace(o), "/"); o != "" {
			out = append(out, o)
		}
	}
	return out
}

func (c Config) validateWeb() error {
	if c.WebClientDir != "" {
		if _, err := os.Stat(filepath.Join(c.WebClientDir, "index.html")); err != nil {
			return fmt.Errorf("WEB_CLIENT_DIR: %q has no index.html: %w", c.WebClientDir, err)
		}
	}
	if raw := strings.TrimSpace(c.CORSOrigins); raw != "" && raw != "*" && c.AllowedOrigins() == nil {
		return fmt.Errorf("CORS_ORIGINS: %q names no origin", c.CORSOrigins)
	}
	for _, o := range c.AllowedOrigins() {
		u, err := url.Parse(o)
		if o == "*" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return fmt.Errorf("CORS_ORIGINS: %q is not an origin (scheme://host[:port]); use * alone for any origin", o)
		}
	}
	return nil
}
