package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"testing"

	"moviesdiary/internal/config"
)

// TestServerServesHealthAndReadiness runs the composition root on port 0 with a fresh database.
func TestServerServesHealthAndReadiness(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DATA_DIR", dir)
	t.Setenv("PORT", "3000")
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Host, cfg.Port = "127.0.0.1", 0
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	errc := make(chan error, 1)
	go func() { errc <- run(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), addr) }()
	base := "http://" + <-addr
	for path, want := range map[string]int{"/health": 200, "/ready": 200, "/nope": 404} {
		resp, err := http.Get(base + path)
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
	cancel()
	if err := <-errc; err != nil {
		t.Fatalf("graceful shutdown: %v", err)
	}
	if _, err := filepath.Glob(filepath.Join(dir, "moviesdiary.db")); err != nil {
		t.Fatal(err)
	}
}
