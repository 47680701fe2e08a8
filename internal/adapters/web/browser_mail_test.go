package web_test

import (
	"context"
	"io"
	"mime/quotedprintable"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"moviesdiary/internal/adapters/smtp"
	"moviesdiary/internal/adapters/smtp/smtptest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/mail"
)

// mailLinks runs the worker's mail handler over the password reset events after row since,
// sending through a real SMTP server (STARTTLS, AUTH PLAIN), and returns the paths of the links
// that arrived.
func mailLinks(t *testing.T, b *bundle, srv *smtptest.Server, since int64) []string {
	t.Helper()
	sender, err := smtp.New(smtp.Config{Host: srv.Host(), Port: srv.Port(), Username: smtptest.Username,
		Password: smtptest.Password, From: "diary@diary.test", RootCAs: srv.CAPool(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	h, err := mail.New(b.Store, sender, mail.Config{BaseURL: "http://diary.test"})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := b.DB.Query(`SELECT id, event_id, event_type, payload FROM event_queue WHERE id > ? AND event_type = ? ORDER BY id`,
		since, "PasswordResetRequested")
	if err != nil {
		t.Fatal(err)
	}
	type ev struct {
		id string
		e  domain.Event
	}
	var evs []ev
	for rows.Next() {
		var row int64
		var id, typ, payload string
		if err := rows.Scan(&row, &id, &typ, &payload); err != nil {
			t.Fatal(err)
		}
		e, err := domain.Decode(typ, []byte(payload))
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev{id, e})
	}
	rows.Close()
	before := len(srv.Messages())
	for _, x := range evs {
		if err := h.Links(context.Background(), x.id, 1, x.e); err != nil {
			t.Fatal(err)
		}
	}
	link := regexp.MustCompile(`http://diary\.test(/password-reset\?token=[A-Za-z0-9_-]+)`)
	var out []string
	for _, m := range srv.Wait(t, before+len(evs), 10*time.Second)[before:] {
		p := m.Parsed(t)
		text, err := io.ReadAll(quotedprintable.NewReader(p.Body))
		if err != nil {
			t.Fatal(err)
		}
		sub := link.FindStringSubmatch(string(text))
		if sub == nil {
			t.Fatalf("no link in %s", m.Data)
		}
		out = append(out, sub[1])
	}
	return out
}

func (b *bundle) lastEventRow(t *testing.T) int64 {
	t.Helper()
	var n int64
	if err := b.DB.QueryRow(`SELECT coalesce(max(id), 0) FROM event_queue`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestBrowserPasswordReset: a new account's unconfirmed address gets its link again from the
// account page; forgot password on the log-in page → the link mailed through a real
// SMTP server → a new password → log in with it. The old password no longer works, the link
// works once, and without mail the page says to ask the admin.
func TestBrowserPasswordReset(t *testing.T) {
	chromiumPath(t)
	b := setup(t, options{mail: true})
	srv := smtptest.Start(t, smtptest.Options{})
	browser := newBrowser(t)
	dir := t.TempDir()

	bob := person(t, browser, b.srv.URL, dir)
	bob.open("/register")
	bob.fill("#email", "bob@example.com", "#username", "bob", "#password", "correct horse", "#password2", "correct horse")
	bob.submit("form.card button[type=submit]", "Account created")
	// His address waits for its link; the account page says so and sends it again.
	bob.open("/account")
	bob.waitText("#unconfirmed", "is not confirmed yet")
	bob.do(chromedp.Click(chromedp.CSS("#unconfirmed button")))
	bob.waitText(".notice", "on its way again")

	since := b.lastEventRow(t)
	guest := person(t, browser, b.srv.URL, dir)
	guest.open("/login")
	guest.do(chromedp.Click(chromedp.CSS("#forgot")))
	guest.fill("#email", "bob@example.com")
	guest.do(clickSubmit())
	guest.waitText("#reset-sent", "a link to choose a new password is on its way")
	links := mailLinks(t, b, srv, since)
	if len(links) != 1 {
		t.Fatalf("links %v", links)
	}

	guest.open(links[0])
	guest.fill("#new_password", "battery staple", "#new_password2", "battery staple")
	guest.submit("form.card button[type=submit]", "Password set")
	guest.fill("#email", "bob@example.com", "#password", "battery staple")
	guest.do(clickSubmit())
	guest.waitText("h1", "Latest reviews")
	guest.waitText("body", "Log out")

	if _, err := b.site.API.Auth.Login(context.Background(), "bob@example.com", "correct horse"); err == nil {
		t.Error("the old password still logs in")
	}

	// The link works once.
	again := person(t, browser, b.srv.URL, dir)
	again.open(links[0])
	again.fill("#new_password", "third password", "#new_password2", "third password")
	again.do(clickSubmit())
	again.waitText("main", "invalid, used or expired")
	if _, err := b.site.API.Auth.Login(context.Background(), "bob@example.com", "battery staple"); err != nil {
		t.Errorf("a spent link changed the password: %v", err)
	}

	// Without mail the page says so.
	off := setup(t)
	page := person(t, browser, off.srv.URL, dir)
	page.open("/password-reset")
	page.waitText("#reset-no-mail", "Ask your admin")
}
