package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/config"
)

// runCLI runs the command line in-process and returns its exit status and output.
func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = cli(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestVersionHelpAndMistakesTouchNothing: --version and --help answer at once, and an unknown
// flag or command is a usage error (exit 2); none of them reads the environment or writes the
// data directory (./data by default).
func TestVersionHelpAndMistakesTouchNothing(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("PORT", "not a port") // a configuration error would be exit 2 too, with another message
	for _, c := range []struct {
		args []string
		code int
		out  string // in stdout (0) or stderr (2)
	}{
		{[]string{"--version"}, 0, "moviesdiary server "},
		{[]string{"version"}, 0, "moviesdiary server "},
		{[]string{"-h"}, 0, "usage: server"},
		{[]string{"--help"}, 0, "healthcheck"},
		{[]string{"--port", "3000"}, 2, `unknown command or flag "--port"`},
		{[]string{"serve", "--debug"}, 2, "serve takes no arguments"},
		{[]string{"bogus"}, 2, `unknown command or flag "bogus"`},
		{[]string{"--version", "x"}, 2, "version takes no arguments"},
	} {
		code, stdout, stderr := runCLI(t, "", c.args...)
		got := stdout
		if c.code != 0 {
			got = stderr
		}
		if code != c.code || !strings.Contains(got, c.out) {
			t.Errorf("server %v: exit %d, stdout %q, stderr %q; want exit %d with %q", c.args, code, stdout, stderr, c.code, c.out)
		}
		if c.code == 2 && !strings.Contains(stderr, "usage: server") {
			t.Errorf("server %v: the usage error does not show the usage", c.args)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Fatalf("the commands wrote %v into the working directory", entries)
	}
}

// TestConfigErrorIsExit2 names the variable and writes nothing.
func TestConfigErrorIsExit2(t *testing.T) {
	t.Setenv("DATA_DIR", filepath.Join(t.TempDir(), "data"))
	t.Setenv("PORT", "70000")
	code, _, stderr := runCLI(t, "")
	if code != 2 || !strings.Contains(stderr, "PORT") {
		t.Fatalf("exit %d, stderr %q; want 2 naming PORT", code, stderr)
	}
	if _, err := os.Stat(os.Getenv("DATA_DIR")); err == nil {
		t.Fatal("a configuration error created the data directory")
	}
}

// TestHealthcheck: exit 0 while the server answers /ready with 200, 1 once it is gone; HOST
// 0.0.0.0 is asked on loopback.
func TestHealthcheck(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DATA_DIR", dir)
	t.Setenv("HOST", "127.0.0.1")
	t.Setenv("SERVER_METRICS_ADDR", "")
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Port = 0
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	errc := make(chan error, 1)
	go func() { errc <- run(ctx, cfg, testLog(t), time.Now, addr) }()
	_, port, _ := strings.Cut(<-addr, ":")
	t.Setenv("PORT", port)
	t.Setenv("HOST", "0.0.0.0")
	if code, stdout, stderr := runCLI(t, "", "healthcheck"); code != 0 || !strings.Contains(stdout, "ready: http://127.0.0.1:"+port+"/ready") {
		t.Errorf("healthcheck of a running server: exit %d, %q %q", code, stdout, stderr)
	}
	if code, _, stderr := runCLI(t, "", "healthcheck", "--url", "http://127.0.0.1:"+port+"/nope"); code != 1 || !strings.Contains(stderr, "404") {
		t.Errorf("healthcheck of a 404: exit %d, %q; want 1 naming the status", code, stderr)
	}
	if code, _, _ := runCLI(t, "", "healthcheck", "extra"); code != 2 {
		t.Errorf("healthcheck with an argument: exit %d, want 2", code)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "", "healthcheck", "--timeout", "2s"); code != 1 || !strings.Contains(stderr, "not ready") {
		t.Errorf("healthcheck of a stopped server: exit %d, %q; want 1", code, stderr)
	}
}

func TestReadyURL(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]string{
		"0.0.0.0": "http://127.0.0.1:3000/ready", "": "http://127.0.0.1:3000/ready", "::": "http://127.0.0.1:3000/ready",
		"10.1.2.3": "http://10.1.2.3:3000/ready", "::1": "http://[::1]:3000/ready",
	} {
		if got := readyURL(config.Config{Host: host, Port: 3000}); got != want {
			t.Errorf("HOST %q: %s, want %s", host, got, want)
		}
	}
}

// TestConfigPrintsTheEffectiveSettings: `server config` (and --print-config) prints every
// setting with the value in effect and its secrets masked, warns on stderr about a misspelt
// variable, and touches nothing.
func TestConfigPrintsTheEffectiveSettings(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	secret := filepath.Join(t.TempDir(), "jwt")
	if err := os.WriteFile(secret, []byte("a-jwt-secret-read-from-its-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("JWT_SECRET_FILE", secret)
	t.Setenv("TMDB_API_KEY", "tmdb-key-inline")
	t.Setenv("PORT", "8080")
	t.Setenv("PROT", "8081")
	for _, args := range [][]string{{"config"}, {"--print-config"}} {
		code, stdout, stderr := runCLI(t, "", args...)
		if code != 0 {
			t.Fatalf("server %v: exit %d, stderr %s", args, code, stderr)
		}
		for _, want := range []string{"\nPORT=8080\n", "\nJWT_SECRET_FILE=" + secret + "\nJWT_SECRET=********\n", "\nTMDB_API_KEY=********\n", "\nDATA_DIR=./data\n"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("server %v lacks %q:\n%s", args, want, stdout)
			}
		}
		if strings.Contains(stdout, "a-jwt-secret") || strings.Contains(stdout, "tmdb-key-inline") {
			t.Errorf("server %v shows a secret:\n%s", args, stdout)
		}
		if !strings.Contains(stderr, "PROT") || !strings.Contains(stderr, "did you mean PORT?") {
			t.Errorf("server %v: stderr %q does not warn about PROT", args, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "", "config", "extra"); code != 2 || !strings.Contains(stderr, "config takes no arguments") {
		t.Errorf("server config extra: exit %d, stderr %q; want a usage error", code, stderr)
	}
	t.Setenv("TMDB_API_KEY_FILE", secret)
	if code, _, stderr := runCLI(t, "", "config"); code != 2 || !strings.Contains(stderr, "TMDB_API_KEY_FILE: TMDB_API_KEY is set as well") {
		t.Errorf("both forms set: exit %d, stderr %q; want a configuration error", code, stderr)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Fatalf("server config wrote %v into the working directory", entries)
	}
}
