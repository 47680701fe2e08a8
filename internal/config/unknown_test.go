package config

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

// TestSuspectsAreMisspellingsOfOurs: a close misspelling of a setting, or a variable with our
// prefixes that is none, is suspect and names the setting it likely means; the variables a
// shell, systemd, Docker or Kubernetes set are not.
func TestSuspectsAreMisspellingsOfOurs(t *testing.T) {
	environ := []string{
		"PROT=8080", "EVENT_QUEUE_MAX_ATTEMTPS=9", "port=8080", "TMDB_KEY=x", "NATS_CREDS=/x", "LOGLEVEL=debug",
		"JWT_SECRETS=x", "DATABASE_URL_FIEL=/run/secrets/db",
		// not suspects: ours, their file forms, and everyone else's
		"PORT=3000", "JWT_SECRET_FILE=/run/secrets/jwt", "EVENT_QUEUE_MAX_ATTEMPTS=5",
		"HOME=/root", "PATH=/usr/bin", "USER=md", "HOSTNAME=box", "SHELL=/bin/sh", "TERM=xterm", "LANG=C",
		"PWD=/", "OLDPWD=/", "SHLVL=1", "LOGNAME=md", "MAIL=/var/mail/md", "TZ=UTC", "GOPATH=/go",
		"INVOCATION_ID=1", "JOURNAL_STREAM=8:1", "NOTIFY_SOCKET=/run/x", "STATE_DIRECTORY=/var/lib/md",
		"RUNTIME_DIRECTORY=/run/md", "CREDENTIALS_DIRECTORY=/run/credentials/md", "LISTEN_FDS=1", "LISTEN_PID=1",
		"HTTP_PROXY=http://p", "HTTPS_PROXY=http://p", "NO_PROXY=localhost", "SSL_CERT_FILE=/x", "LC_ALL=C",
		"XDG_RUNTIME_DIR=/run/user/0", "DEBIAN_FRONTEND=noninteractive", "KUBERNETES_SERVICE_HOST=10.0.0.1",
		"NATS_SERVICE_HOST=10.0.0.5", "NATS_SERVICE_PORT=4222", "NATS_PORT=tcp://10.0.0.5:4222",
		"NATS_PORT_4222_TCP_ADDR=10.0.0.5", "WORKER_TEST_CHILD=1", "POSTGRES_PASSWORD=x", "PGHOST=db",
	}
	got := map[string]string{}
	for _, s := range Suspects(environ) {
		got[s.Name] = s.Meant
	}
	want := map[string]string{
		"PROT": "PORT", "EVENT_QUEUE_MAX_ATTEMTPS": "EVENT_QUEUE_MAX_ATTEMPTS", "port": "PORT",
		"TMDB_KEY": "TMDB_API_KEY", "NATS_CREDS": "", "LOGLEVEL": "LOG_LEVEL", "JWT_SECRETS": "JWT_SECRET",
		"DATABASE_URL_FIEL": "DATABASE_URL_FILE",
	}
	for name, meant := range want {
		if m, ok := got[name]; !ok || m != meant {
			t.Errorf("%s: suspect %v meaning %q; want suspect meaning %q", name, ok, m, meant)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s is suspect, want it left alone", name)
		}
	}
}

// TestWarnSuspectsNamesTheIntendedSetting: the start-up warning names the variable and the
// setting it likely means.
func TestWarnSuspectsNamesTheIntendedSetting(t *testing.T) {
	var out bytes.Buffer
	WarnSuspects(context.Background(), slog.New(slog.NewJSONHandler(&out, nil)), []string{"PROT=8080", "PORT=1"})
	line := out.String()
	for _, want := range []string{`"level":"WARN"`, `did you mean PORT?`, `"variable":"PROT"`, `"did_you_mean":"PORT"`} {
		if !strings.Contains(line, want) {
			t.Errorf("warning %s lacks %s", line, want)
		}
	}
	if strings.Count(line, "\n") != 1 {
		t.Errorf("want one warning, got %q", line)
	}
}
