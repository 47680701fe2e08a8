package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os/exec"
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

// importRule says why pkg may not import imp, or "" when it may. Dependencies point inward
// (DESIGN.md): internal/domain imports nothing of ours; internal/usecase/** imports only
// internal/domain and internal/usecase/**; only cmd/* and internal/app/** import
// internal/adapters/** (an adapter may import its own subpackages, such as sqlite/sqlitetest,
// but no other adapter), so internal/delivery, internal/maintenance and internal/config import
// no adapters.
func importRule(pkg, imp string) string {
	const mod = "moviesdiary/"
	if !strings.HasPrefix(imp, mod) {
		return ""
	}
	p, i := strings.TrimPrefix(pkg, mod), strings.TrimPrefix(imp, mod)
	under := func(path, dir string) bool { return path == dir || strings.HasPrefix(path, dir+"/") }
	adapter := func(path string) string { // "sqlite" for internal/adapters/sqlite/…
		name, _, _ := strings.Cut(strings.TrimPrefix(path, "internal/adapters/"), "/")
		return name
	}
	switch {
	case under(p, "internal/domain") && !under(i, "internal/domain"):
		return "internal/domain imports nothing of ours"
	case under(p, "internal/usecase") && !under(i, "internal/domain") && !under(i, "internal/usecase"):
		return "internal/usecase imports only internal/domain and internal/usecase"
	case under(i, "internal/adapters/sqlrow") && under(p, "internal/adapters") &&
		(adapter(p) == "sqlite" || adapter(p) == "postgres"):
		return "" // the rows both SQL stores read, shared by those two only
	case under(i, "internal/adapters") && !under(p, "cmd") && !under(p, "internal/app") &&
		!(under(p, "internal/adapters") && adapter(p) == adapter(i)):
		return "only cmd/* and internal/app/** import adapters (an adapter only its own subpackages; sqlrow the SQL stores)"
	}
	return ""
}

func TestImportRuleCatchesEachBreak(t *testing.T) {
	for _, c := range []struct {
		pkg, imp string
		bad      bool
	}{
		{"moviesdiary/internal/domain", "moviesdiary/internal/delivery", true},
		{"moviesdiary/internal/domain", "github.com/google/uuid", false},
		{"moviesdiary/internal/usecase/review", "moviesdiary/internal/usecase/movie", false},
		{"moviesdiary/internal/usecase/review", "moviesdiary/internal/delivery", true},
		{"moviesdiary/internal/usecase/federation", "moviesdiary/internal/adapters/activitypub", true},
		{"moviesdiary/internal/delivery", "moviesdiary/internal/adapters/sqlite", true},
		{"moviesdiary/internal/maintenance", "moviesdiary/internal/adapters/sqlite", true},
		{"moviesdiary/internal/adapters/httpapi", "moviesdiary/internal/adapters/sqlite", true},
		{"moviesdiary/internal/adapters/sqlite/sqlitetest", "moviesdiary/internal/adapters/sqlite", false},
		{"moviesdiary/internal/adapters/nats", "moviesdiary/internal/delivery", false},
		{"moviesdiary/internal/app", "moviesdiary/internal/adapters/sqlite", false},
		{"moviesdiary/internal/app/mediatest", "moviesdiary/internal/adapters/sqlite", false},
		{"moviesdiary/cmd/worker", "moviesdiary/internal/adapters/nats", false},
		{"moviesdiary/internal/adapters/postgres", "moviesdiary/internal/adapters/sqlrow", false},
		{"moviesdiary/internal/adapters/httpapi", "moviesdiary/internal/adapters/sqlrow", true},
		{"moviesdiary/internal/adapters/postgres", "moviesdiary/internal/adapters/sqlite", true},
	} {
		if got := importRule(c.pkg, c.imp) != ""; got != c.bad {
			t.Errorf("%s importing %s: broken %v, want %v", c.pkg, c.imp, got, c.bad)
		}
	}
}

// TestImportRules enforces importRule on every package of the module, from `go list` (non-test
// imports only: test files are exempt).
func TestImportRules(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go tool lists the packages' imports: %v", err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(goTool, "list", "-tags", "sqlite_fts5", "-json=ImportPath,Imports", "moviesdiary/...")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	seen := 0
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		seen++
		var broken []string
		for _, imp := range p.Imports {
			if why := importRule(p.ImportPath, imp); why != "" {
				broken = append(broken, imp+" ("+why+")")
			}
		}
		if len(broken) == 0 {
			continue
		}
		t.Run(p.ImportPath, func(t *testing.T) {
			t.Errorf("%s imports %s", p.ImportPath, strings.Join(broken, ", "))
		})
	}
	if seen < 20 {
		t.Fatalf("go list returned %d packages; the check would be vacuous", seen)
	}
}
