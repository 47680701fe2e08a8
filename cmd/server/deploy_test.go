package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestComposeFileValidates runs `docker-compose config` (or `docker compose config`) over
// deploy/docker-compose.yml with every profile and deploy/.env.example, when either is on PATH.
func TestComposeFileValidates(t *testing.T) {
	t.Parallel()
	var cmd *exec.Cmd
	args := []string{"--env-file", "../../deploy/.env.example", "-f", "../../deploy/docker-compose.yml",
		"--profile", "monitoring", "--profile", "tls", "config", "-q"}
	if p, err := exec.LookPath("docker-compose"); err == nil {
		cmd = exec.Command(p, args...)
	} else if p, err := exec.LookPath("docker"); err == nil && exec.Command(p, "compose", "version").Run() == nil {
		cmd = exec.Command(p, append([]string{"compose"}, args...)...)
	} else {
		t.Fatal("neither docker-compose nor docker compose is on PATH: install Debian's docker-compose (.ci/run does)")
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
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
