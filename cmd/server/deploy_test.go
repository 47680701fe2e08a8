package main

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"moviesdiary/internal/testtool"
)

// TestComposeFileValidates runs `docker-compose config` (or `docker compose config`) over
// deploy/docker-compose.yml with every profile and deploy/.env.example.
func TestComposeFileValidates(t *testing.T) {
	t.Parallel()
	composeConfig(t, "../../deploy/.env.example", "monitoring", "tls", "postgres")
}

// TestComposePostgresProfile: with the postgres lines of deploy/.env.example uncommented, the
// server and the worker get a DATABASE_URL naming the profile's service, user and database, and
// the password the PostgreSQL service is initialised with; the healthcheck asks for that user.
func TestComposePostgresProfile(t *testing.T) {
	t.Parallel()
	example, err := os.ReadFile("../../deploy/.env.example")
	if err != nil {
		t.Fatal(err)
	}
	var env []string
	var dbURL string
	for _, line := range strings.Split(string(example), "\n") {
		for _, v := range []string{"COMPOSE_PROFILES=", "POSTGRES_PASSWORD=", "DATABASE_URL="} {
			if strings.HasPrefix(line, "#"+v) {
				line = strings.TrimPrefix(line, "#")
			}
		}
		if u, ok := strings.CutPrefix(line, "DATABASE_URL="); ok {
			dbURL = u
		}
		if line == "POSTGRES_PASSWORD=" {
			line += "test-password-0123"
		}
		env = append(env, line)
	}
	u, err := url.Parse(dbURL)
	if err != nil || u.Scheme != "postgres" {
		t.Fatalf("deploy/.env.example: DATABASE_URL %q is not a postgres:// URL (%v)", dbURL, err)
	}
	if _, ok := u.User.Password(); ok {
		t.Errorf("deploy/.env.example: DATABASE_URL %q holds a password; the compose file passes it as PGPASSWORD", dbURL)
	}
	envFile := filepath.Join(t.TempDir(), "postgres.env")
	if err := os.WriteFile(envFile, []byte(strings.Join(env, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	out := composeConfig(t, envFile, "postgres")
	user, db := u.User.Username(), strings.TrimPrefix(u.Path, "/")
	for _, c := range []struct {
		want string
		n    int
	}{
		{"DATABASE_URL: " + dbURL, 2},                // server and worker
		{"PGPASSWORD: test-password-0123", 2},        // server and worker
		{"POSTGRES_PASSWORD: test-password-0123", 1}, // the postgres service
		{"POSTGRES_USER: " + user, 1},
		{"POSTGRES_DB: " + db, 1},
		{"image: postgres:17.", 1},
	} {
		if got := strings.Count(out, c.want); got != c.n {
			t.Errorf("compose config with the postgres lines: %q %d times, want %d", c.want, got, c.n)
		}
	}
	raw, err := os.ReadFile("../../deploy/docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	if want := `"pg_isready", "-q", "-h", "127.0.0.1", "-U", "` + user + `", "-d", "` + db + `"`; !strings.Contains(string(raw), want) {
		t.Errorf("deploy/docker-compose.yml: the postgres healthcheck is not %s", want)
	}
	if u.Hostname() != "postgres" || !strings.Contains(out, "\n  postgres:\n") {
		t.Errorf("DATABASE_URL's host %q is not the compose service postgres", u.Hostname())
	}
}

// composeConfig runs `docker-compose config` (or `docker compose config`) over
// deploy/docker-compose.yml with envFile and profiles, and returns the resolved file.
func composeConfig(t *testing.T, envFile string, profiles ...string) string {
	t.Helper()
	args := []string{"--env-file", envFile, "-f", "../../deploy/docker-compose.yml"}
	for _, p := range profiles {
		args = append(args, "--profile", p)
	}
	args = append(args, "config")
	var cmd *exec.Cmd
	p, err := testtool.Find(testtool.Compose)
	switch {
	case err == nil:
		cmd = exec.Command(p, args...)
	case testtool.Hidden(testtool.Compose):
		testtool.Missing(t, testtool.Compose, err)
	default:
		d, derr := exec.LookPath("docker")
		if derr != nil || exec.Command(d, "compose", "version").Run() != nil {
			testtool.Missing(t, testtool.Compose, fmt.Errorf("%v, and no docker compose plugin", err))
		}
		cmd = exec.Command(d, append([]string{"compose"}, args...)...)
	}
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, stderr)
	}
	return string(out)
}

// TestDeployFilesAgree: what the image, compose and Prometheus say about ports and commands
// matches the binaries: the healthcheck subcommand, the metrics addresses, the rules file.
func TestDeployFilesAgree(t *testing.T) {
	t.Parallel()
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join("../../deploy", p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	compose, prom, dockerfile := read("docker-compose.yml"), read("prometheus/prometheus.yml"), read("Dockerfile")
	for _, c := range []struct{ file, text, want string }{
		{"docker-compose.yml", compose, `["CMD", "server", "healthcheck", "-q"]`},
		{"docker-compose.yml", compose, `SERVER_METRICS_ADDR: ":9090"`},
		{"docker-compose.yml", compose, `./prometheus/alerts.yml:/etc/prometheus/alerts.yml:ro`},
		{"prometheus.yml", prom, `"server:9090"`},
		{"prometheus.yml", prom, `"worker:9091"`},
		{"prometheus.yml", prom, "alerts.yml"},
		{"Dockerfile", dockerfile, `CMD ["server", "healthcheck", "-q"]`},
		{"Dockerfile", dockerfile, "USER 65532:65532"},
	} {
		if !strings.Contains(c.text, c.want) {
			t.Errorf("deploy/%s lacks %s", c.file, c.want)
		}
	}
	if strings.Contains(compose, `"CMD", "curl"`) || strings.Contains(compose, ":-admin}") {
		t.Error("compose still uses curl or a default Grafana password")
	}
	if _, err := os.Stat("../../.dockerignore"); err != nil {
		t.Error("no root .dockerignore: the legacy builder would send .git and data/ into the context")
	}
}
