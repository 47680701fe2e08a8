package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/adapters/metrics"
	"moviesdiary/internal/config"
)

func TestJWTSecretIsGeneratedOnceAndKept(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	first, generated, err := jwtSecret("", dir)
	if err != nil || !generated || len(first) < 32 {
		t.Fatalf("first start: %q, generated %v, %v", first, generated, err)
	}
	info, err := os.Stat(filepath.Join(dir, secretFile))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("secret file: %v, mode %v; want 0600", err, info.Mode())
	}
	second, generated, err := jwtSecret("", dir)
	if err != nil || generated || string(second) != string(first) {
		t.Errorf("second start: generated %v, same %v, %v", generated, string(second) == string(first), err)
	}
	configured, _, err := jwtSecret("a configured secret!", dir)
	if err != nil || string(configured) != "a configured secret!" {
		t.Errorf("JWT_SECRET set: %q, %v", configured, err)
	}
}

// TestGeneratedSecretLogSaysWhereItIsKept: on SQLite the generated secret is kept in
// DATA_DIR/jwt_secret, and the start-up line names that file, not the database.
func TestGeneratedSecretLogSaysWhereItIsKept(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DATA_DIR", dir)
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&out, nil))
	ctx := context.Background()
	db, err := openDatabase(ctx, cfg, log, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := newAPI(ctx, cfg, db, nil, log, nil, metrics.NewServer()); err != nil {
		t.Fatal(err)
	}
	var where string
	for _, line := range strings.Split(out.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && strings.HasPrefix(fmt.Sprint(m["msg"]), "generated a JWT secret") {
			where = fmt.Sprint(m["where"])
		}
	}
	if want := filepath.Join(dir, secretFile); where != want {
		t.Errorf("the generated secret's line says it is kept in %q, want %q:\n%s", where, want, out.String())
	}
}
