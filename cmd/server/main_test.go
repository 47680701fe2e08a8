package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"moviesdiary/internal/adapters/httpapi"
	"moviesdiary/internal/adapters/postgres/pgtest"
	"moviesdiary/internal/adapters/token"
	"moviesdiary/internal/config"
	"moviesdiary/internal/usecase/auth"
)

// TestMain fails the tests if a goroutine outlives them: run must join every part it starts.
func TestMain(m *testing.M) { goleak.VerifyTestMain(withPostgres{m}) }

// withPostgres stops the throwaway PostgreSQL cluster (started by the first test that needs
// one) after the tests, before the leak check.
type withPostgres struct{ m *testing.M }

func (w withPostgres) Run() int { return pgtest.Main(w.m) }

// testLog sends a test's logs to its output (shown when it fails or with -v).
func testLog(t *testing.T) *slog.Logger { return slog.New(slog.NewTextHandler(t.Output(), nil)) }

// TestServerServesHealthAndReadiness runs the composition root on port 0 with a fresh database,
// and stops it: run returns nil and leaves no goroutine behind.
func TestServerServesHealthAndReadiness(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DATA_DIR", dir)
	t.Setenv("PORT", "3000")
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Host, cfg.Port, cfg.ServerMetricsAddr = "127.0.0.1", 0, ""
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	errc := make(chan error, 1)
	go func() { errc <- run(ctx, cfg, testLog(t), time.Now, addr) }()
	base := "http://" + <-addr
	client := &http.Client{Transport: &http.Transport{}}
	for path, want := range map[string]int{"/health": 200, "/ready": 200, "/nope": 404} {
		resp, err := client.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]string
		decodeErr := json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != want || decodeErr != nil || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("GET %s: %d %v (%v); want %d with a JSON body", path, resp.StatusCode, body, decodeErr, want)
		}
	}
	client.CloseIdleConnections()
	cancel()
	if err := <-errc; err != nil {
		t.Fatalf("graceful shutdown: %v", err)
	}
	if _, err := filepath.Glob(filepath.Join(dir, "moviesdiary.db")); err != nil {
		t.Fatal(err)
	}
	goleak.VerifyNone(t)
}

// TestServerStopsWithAPortTaken: a port already taken stops run with the listen error and no
// goroutine left.
func TestServerStopsWithAPortTaken(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	t.Setenv("DATA_DIR", t.TempDir())
	t.Setenv("HOST", "127.0.0.1")
	t.Setenv("PORT", strconv.Itoa(taken.Addr().(*net.TCPAddr).Port))
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	err = run(context.Background(), cfg, testLog(t), time.Now, nil)
	if err == nil || !strings.Contains(err.Error(), "listen") {
		t.Fatalf("run = %v, want the listen error", err)
	}
	goleak.VerifyNone(t)
}

// TestServerDefaultsMatchThePackages: each server variable's envconfig default is the constant
// the package it configures falls back to, so the two sources of a default cannot drift.
func TestServerDefaultsMatchThePackages(t *testing.T) {
	defaults := config.Defaults()
	for env, want := range map[string]int64{
		"JWT_TTL_SECONDS":     int64(token.TTLDefault / time.Second),
		"REFRESH_TTL_SECONDS": int64(auth.RefreshTTLDefault / time.Second),
		"RATE_LIMIT":          httpapi.AuthRateLimitDefault,
	} {
		got, err := strconv.ParseInt(defaults[env], 10, 64)
		if err != nil || got != want {
			t.Errorf("%s: default %q (%v), the package's is %d", env, defaults[env], err, want)
		}
	}
}
