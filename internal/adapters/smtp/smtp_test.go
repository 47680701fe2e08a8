package smtp_test

import (
	"context"
	"io"
	"mime"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/adapters/smtp"
	"moviesdiary/internal/adapters/smtp/smtptest"
	"moviesdiary/internal/usecase/mail"
)

func sender(t *testing.T, srv *smtptest.Server, mode string) *smtp.Sender {
	t.Helper()
	s, err := smtp.New(smtp.Config{Host: srv.Host(), Port: srv.Port(), Username: smtptest.Username, Password: smtptest.Password,
		From: "Movies Diary <diary@example.org>", TLS: mode, RootCAs: srv.CAPool(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSendOverTLS: over STARTTLS and over implicit TLS, authenticated with AUTH PLAIN, the
// server receives a well-formed message: From, To, Date, the given Message-ID, MIME 1.0, the
// UTF-8 subject encoded (RFC 2047) and the body intact.
func TestSendOverTLS(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		implicit bool
		mode     string
	}{{"starttls", false, smtp.StartTLS}, {"implicit", true, smtp.TLS}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := smtptest.Start(t, smtptest.Options{Implicit: c.implicit})
			date := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
			err := sender(t, srv, c.mode).Send(context.Background(), mail.Message{ID: "0190-abc.1@diary.example",
				To: []string{"alice@example.org"}, Subject: "Réinitialiser — ünïcødé ✓", Text: "Hello\n\nhttps://diary.example/x?token=abc\n",
				Date: date})
			if err != nil {
				t.Fatal(err)
			}
			got := srv.Wait(t, 1, 10*time.Second)[0]
			if !got.TLS || !got.Authenticated || got.From != "diary@example.org" || len(got.To) != 1 || got.To[0] != "alice@example.org" {
				t.Errorf("envelope %+v", got)
			}
			p := got.Parsed(t)
			h := p.Header
			subject, err := new(mime.WordDecoder).DecodeHeader(h.Get("Subject"))
			if err != nil || subject != "Réinitialiser — ünïcødé ✓" || !strings.HasPrefix(h.Get("Subject"), "=?UTF-8?") {
				t.Errorf("Subject %q (decoded %q, %v)", h.Get("Subject"), subject, err)
			}
			if h.Get("Message-Id") != "<0190-abc.1@diary.example>" || h.Get("Mime-Version") != "1.0" ||
				!strings.Contains(h.Get("From"), "diary@example.org") || h.Get("To") != "<alice@example.org>" {
				t.Errorf("headers %v", h)
			}
			if d, err := h.Date(); err != nil || !d.Equal(date) {
				t.Errorf("Date %q: %v", h.Get("Date"), err)
			}
			if !strings.Contains(h.Get("Content-Type"), "text/plain") || !strings.Contains(strings.ToLower(h.Get("Content-Type")), "utf-8") {
				t.Errorf("Content-Type %q", h.Get("Content-Type"))
			}
			body, _ := io.ReadAll(p.Body)
			if !strings.Contains(strings.ReplaceAll(string(body), "=\r\n", ""), "https://diary.example/x?token=3Dabc") &&
				!strings.Contains(string(body), "https://diary.example/x?token=abc") {
				t.Errorf("body %q", body)
			}
		})
	}
}

// TestSendFailures: a refusing server (4xx, 5xx), a server that is down, a certificate nobody
// trusts and wrong credentials are each an error, and nothing is received; once the server
// takes mail again, sending works.
func TestSendFailures(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t, smtptest.Options{})
	ctx := context.Background()
	m := mail.Message{ID: "x@diary.example", To: []string{"bob@example.org"}, Subject: "s", Text: "t"}
	s := sender(t, srv, smtp.StartTLS)
	for _, code := range []int{451, 550} {
		srv.Refuse(code)
		if err := s.Send(ctx, m); err == nil || !strings.Contains(err.Error(), "Refused by the test") {
			t.Errorf("refused with %d: error %v", code, err)
		}
	}
	srv.Accept()
	srv.Down()
	if err := s.Send(ctx, m); err == nil {
		t.Error("server down: no error")
	}
	srv.Up()
	untrusted, err := smtp.New(smtp.Config{Host: srv.Host(), Port: srv.Port(), Username: smtptest.Username, Password: smtptest.Password,
		From: "diary@example.org", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := untrusted.Send(ctx, m); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("untrusted certificate: error %v", err)
	}
	wrong, err := smtp.New(smtp.Config{Host: srv.Host(), Port: srv.Port(), Username: smtptest.Username, Password: "wrong",
		From: "diary@example.org", RootCAs: srv.CAPool(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := wrong.Send(ctx, m); err == nil {
		t.Error("wrong password: no error")
	}
	if n := len(srv.Messages()); n != 0 {
		t.Fatalf("%d messages received while refusing", n)
	}
	if err := s.Send(ctx, m); err != nil {
		t.Fatalf("the server is back: %v", err)
	}
	srv.Wait(t, 1, 10*time.Second)
}
