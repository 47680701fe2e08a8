package main

import (
	"context"
	"encoding/json"
	"io"
	"mime"
	"mime/quotedprintable"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/adapters/smtp/smtptest"
	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/app"
	"moviesdiary/internal/config"
	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/usecase/auth"
)

// TestMailSurvivesAnSMTPOutage runs the server's API and the worker's run (its real engine)
// against a real SMTP server (STARTTLS with a self-signed certificate trusted through
// SMTP_CA_FILE, AUTH PLAIN). While the server refuses mail (451) and then is down, the mail
// events fail and wait for their retries, none dead-lettered; once it takes mail again, the
// reset link, the address confirmation and the admins' notice of a registration arrive, each
// once, and the mailed reset link works.
func TestMailSurvivesAnSMTPOutage(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{})
	ca := filepath.Join(t.TempDir(), "smtp-ca.pem")
	if err := os.WriteFile(ca, srv.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"DATA_DIR": t.TempDir(), "DATABASE_URL": "", "WORKER_METRICS_ADDR": "", "EVENT_BUS_BACKEND": "db", "LOG_LEVEL": "error",
		"IMAGE_STORAGE_PATH": "", "BASE_URL": "http://diary.test", "EVENT_QUEUE_MAX_ATTEMPTS": "10000",
		"SMTP_HOST": srv.Host(), "SMTP_PORT": strconv.Itoa(srv.Port()), "SMTP_USERNAME": smtptest.Username,
		"SMTP_PASSWORD": smtptest.Password, "SMTP_FROM": "Movies Diary <diary@diary.test>", "SMTP_CA_FILE": ca,
		"NOTIFY_ADMINS_ON_REGISTRATION": "true",
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	cfg.BackoffBase = 10 * time.Millisecond // the test's scale of the retry schedule
	path, _ := cfg.DatabasePath()
	store := sqlitetest.Open(t, path)
	api, err := app.NewAPI(store, app.Options{Log: testLog(t), BaseURL: cfg.BaseURL, Secret: []byte("mail end-to-end test secret!!!!!"),
		AllowRegistration: true, Hasher: auth.Hasher{Memory: 64, Time: 1, Threads: 1}, Mail: cfg.MailEnabled()})
	if err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(api.Handler())
	t.Cleanup(web.Close)
	call := func(path, body string, want int) {
		t.Helper()
		resp, err := http.Post(web.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("POST %s = %d %s, want %d", path, resp.StatusCode, b, want)
		}
	}

	srv.Refuse(451)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, cfg, testLog(t), time.Now) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("worker: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("worker did not stop")
		}
	})
	db := openDB(t, path)

	call("/api/v1/auth/register", `{"email":"ann@example.test","username":"ann","password":"password-ann"}`, 201) // the admin
	call("/api/v1/auth/register", `{"email":"bob@example.test","username":"bob","password":"password-bob"}`, 201)
	call("/api/v1/auth/password-reset", `{"email":"bob@example.test"}`, 202)
	failing := func(what, errLike string) {
		t.Helper()
		deliverytest.Eventually(t, waitLimit, what, func() bool {
			var n int
			_ = db.QueryRow(`SELECT count(*) FROM event_queue WHERE event_type = 'PasswordResetRequested'
				AND status = 'pending' AND attempts >= 2 AND last_error LIKE ?`, errLike).Scan(&n)
			return n == 1
		})
	}
	failing("the reset mail refused (451) and waiting for a retry", "%451%")
	srv.Down()
	before := srv.Sessions()
	failing("the reset mail failing on the server being down", "%dial%")
	if srv.Sessions() != before {
		t.Fatal("a session while the server was down")
	}
	var dead int
	_ = db.QueryRow(`SELECT count(*) FROM event_queue WHERE status = 'dead_lettered'`).Scan(&dead)
	if dead != 0 || len(srv.Messages()) != 0 {
		t.Fatalf("%d dead-lettered, %d mails during the outage", dead, len(srv.Messages()))
	}

	srv.Accept()
	srv.Up()
	// Two confirmations (ann's, bob's), bob's reset link, and ann's notice of bob (ann's own
	// registration has no other admin to tell).
	msgs := srv.Wait(t, 4, waitLimit)
	deliverytest.Eventually(t, waitLimit, "every mail event done", func() bool {
		var n int
		_ = db.QueryRow(`SELECT count(*) FROM event_queue WHERE event_type IN ('PasswordResetRequested',
			'EmailConfirmationRequested', 'UserRegistered') AND status <> 'done'`).Scan(&n)
		return n == 0
	})
	msgs = srv.Messages()
	subjects := map[string]int{}
	var reset string
	for _, m := range msgs {
		p := m.Parsed(t)
		subject, _ := new(mime.WordDecoder).DecodeHeader(p.Header.Get("Subject"))
		subjects[subject+" → "+strings.Join(m.To, ",")]++
		text, _ := io.ReadAll(quotedprintable.NewReader(p.Body))
		if sub := regexp.MustCompile(`/password-reset\?token=([A-Za-z0-9_-]+)`).FindStringSubmatch(string(text)); sub != nil {
			reset = sub[1]
		}
	}
	want := map[string]int{
		"Confirm your e-mail address on diary.test → ann@example.test": 1,
		"Confirm your e-mail address on diary.test → bob@example.test": 1,
		"Reset your password on diary.test → bob@example.test":         1,
		"New account on diary.test: bob → ann@example.test":            1,
	}
	if len(msgs) != 4 || len(subjects) != len(want) {
		t.Fatalf("mails %v", subjects)
	}
	for k, n := range want {
		if subjects[k] != n {
			t.Errorf("%q sent %d times, want %d (all: %v)", k, subjects[k], n, subjects)
		}
	}
	body, _ := json.Marshal(map[string]string{"token": reset, "new_password": "bob's new password"})
	call("/api/v1/auth/password-reset/confirm", string(body), 204)
	call("/api/v1/auth/login", `{"email":"bob@example.test","password":"bob's new password"}`, 200)
}
