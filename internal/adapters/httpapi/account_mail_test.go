package httpapi_test

import (
	"context"
	"io"
	"mime/quotedprintable"
	"regexp"
	"slices"
	"testing"
	"time"

	"moviesdiary/internal/adapters/smtp"
	"moviesdiary/internal/adapters/smtp/smtptest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/mail"
)

// mailer is the worker's mail handler over the test's store, sending through a real SMTP server
// (STARTTLS, AUTH PLAIN, a self-signed certificate).
type mailer struct {
	srv *smtptest.Server
	h   *mail.Handlers
}

func newMailer(t *testing.T, b *bundle) *mailer {
	t.Helper()
	srv := smtptest.Start(t, smtptest.Options{})
	sender, err := smtp.New(smtp.Config{Host: srv.Host(), Port: srv.Port(), Username: smtptest.Username,
		Password: smtptest.Password, From: "diary@diary.test", RootCAs: srv.CAPool(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	h, err := mail.New(b.store, sender, mail.Config{BaseURL: "http://diary.test"})
	if err != nil {
		t.Fatal(err)
	}
	return &mailer{srv: srv, h: h}
}

var linkToken = regexp.MustCompile(`http://diary\.test/(?:password-reset|confirm-email)\?token=([A-Za-z0-9_-]+)`)

// deliver runs the mail handler, as the worker would, over the link events after row since,
// and returns the token of each mail that arrived.
func (m *mailer) deliver(t *testing.T, b *bundle, since int64) []string {
	t.Helper()
	rows, err := b.db.Query(`SELECT event_id, event_type, payload FROM event_queue WHERE id > ? AND event_type IN (?, ?) ORDER BY id`,
		since, "PasswordResetRequested", "EmailConfirmationRequested")
	if err != nil {
		t.Fatal(err)
	}
	type ev struct {
		id string
		e  domain.Event
	}
	var evs []ev
	for rows.Next() {
		var id, typ, payload string
		if err := rows.Scan(&id, &typ, &payload); err != nil {
			t.Fatal(err)
		}
		e, err := domain.Decode(typ, []byte(payload))
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev{id, e})
	}
	rows.Close()
	before := len(m.srv.Messages())
	for _, x := range evs {
		if err := m.h.Links(context.Background(), x.id, 1, x.e); err != nil {
			t.Fatalf("mail handler: %v", err)
		}
	}
	var tokens []string
	for _, msg := range m.srv.Wait(t, before+len(evs), 10*time.Second)[before:] {
		tokens = append(tokens, tokenOf(t, msg))
	}
	return tokens
}

// tokenOf is the link token in a received mail (its body is quoted-printable).
func tokenOf(t *testing.T, msg smtptest.Message) string {
	t.Helper()
	p := msg.Parsed(t)
	var body io.Reader = p.Body
	if p.Header.Get("Content-Transfer-Encoding") == "quoted-printable" {
		body = quotedprintable.NewReader(body)
	}
	text, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	sub := linkToken.FindStringSubmatch(string(text))
	if sub == nil {
		t.Fatalf("no link in the mail:\n%s", msg.Data)
	}
	return sub[1]
}

// TestPasswordResetByMail: the reset request is 202 whether or not the address has an account
// (and writes nothing for an unknown one); the mailed link sets a new password once, ends every
// session, and a reused, expired or wrong link is 403 with nothing changed.
func TestPasswordResetByMail(t *testing.T) {
	t.Parallel()
	b := setup(t, options{mail: true})
	m := newMailer(t, b)
	alice := b.register("alice")
	reset := func(email string) {
		t.Helper()
		b.must(202, req{method: "POST", path: "/api/v1/auth/password-reset", body: map[string]any{"email": email}})
	}
	confirm := func(token, pw string) response {
		t.Helper()
		return b.do(req{method: "POST", path: "/api/v1/auth/password-reset/confirm", body: map[string]any{"token": token, "new_password": pw}})
	}
	login := func(pw string) int {
		t.Helper()
		return b.do(req{method: "POST", path: "/api/v1/auth/login", body: map[string]any{"email": "alice@example.test", "password": pw}}).status
	}

	since := b.lastEvent()
	reset("nobody@example.test")
	if got := b.eventTypes(since); len(got) != 0 {
		t.Fatalf("a reset of an unknown address wrote %v", got)
	}
	reset("alice@example.test")
	if got := b.eventTypes(since); !slices.Equal(got, []string{"PasswordResetRequested"}) {
		t.Fatalf("events %v", got)
	}
	if n := b.scalar(`SELECT count(*) FROM event_queue WHERE id > ? AND payload LIKE '%token%'`, since); n != "0" {
		t.Error("the outbox holds a token")
	}
	tokens := m.deliver(t, b, since)
	msg := m.srv.Messages()[0]
	if h := msg.Parsed(t).Header; h.Get("To") != "<alice@example.test>" || !regexp.MustCompile(`^<[0-9a-f-]{36}\.1@diary\.test>$`).MatchString(h.Get("Message-Id")) {
		t.Errorf("mail headers %v", h)
	}
	token := tokens[0]
	if n := b.scalar(`SELECT count(*) FROM mail_tokens WHERE token_hash = ?`, token); n != "0" {
		t.Error("the token is stored in clear")
	}

	if r := confirm("not-the-token", "new-password-1"); r.status != 403 {
		t.Errorf("wrong token: %d %s", r.status, r.body)
	}
	if r := confirm(token, "short"); r.status != 400 {
		t.Errorf("short password: %d %s", r.status, r.body)
	}
	if login("password-alice") != 200 {
		t.Fatal("a refused reset changed the password")
	}
	if r := confirm(token, "new-password-1"); r.status != 204 {
		t.Fatalf("reset: %d %s", r.status, r.body)
	}
	if login("password-alice") != 401 || login("new-password-1") != 200 {
		t.Error("the reset did not replace the password")
	}
	if r := b.do(req{method: "POST", path: "/api/v1/auth/refresh", body: map[string]any{"refresh_token": alice.refresh}}); r.status != 401 {
		t.Errorf("a session from before the reset still refreshes: %d", r.status)
	}
	if r := confirm(token, "new-password-2"); r.status != 403 || r.errorMessage(t) != "This link is invalid, used or expired: ask for a new one" {
		t.Errorf("reused link: %d %s", r.status, r.body)
	}

	// An expired link: nothing changes.
	since = b.lastEvent()
	reset("alice@example.test")
	expired := m.deliver(t, b, since)[0]
	b.execSQL(`UPDATE mail_tokens SET expires_at = ? WHERE used_at IS NULL`, time.Now().Add(-time.Second).UnixMilli())
	if r := confirm(expired, "new-password-3"); r.status != 403 {
		t.Errorf("expired link: %d %s", r.status, r.body)
	}
	if login("new-password-1") != 200 {
		t.Error("an expired link changed the password")
	}

	// The throttle: ResetLinksPerHour per account and hour, every request still 202.
	since = b.lastEvent()
	for range 5 {
		reset("alice@example.test")
	}
	if got := b.eventTypes(since); len(got) != 1 { // three this hour already, two above
		t.Errorf("throttled requests wrote %v", got)
	}
}

// TestMailOff: without mail, a reset request is a clear 501, and an e-mail change is direct.
func TestMailOff(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register("bob")
	r := b.do(req{method: "POST", path: "/api/v1/auth/password-reset", body: map[string]any{"email": "bob@example.test"}})
	if r.status != 501 || !regexp.MustCompile(`needs mail`).MatchString(r.errorMessage(t)) {
		t.Errorf("reset without mail: %d %s", r.status, r.body)
	}
	b.must(204, req{method: "PUT", path: "/api/v1/account/email", token: a.token,
		body: map[string]any{"current_password": "password-bob", "email": "bob2@example.test"}})
	if got := b.scalar(`SELECT email FROM users WHERE id = ?`, a.id.String()); got != "bob2@example.test" {
		t.Errorf("email %q", got)
	}
}

// TestEmailChangeConfirmedByMail: with mail, registering and changing the e-mail each mail a
// confirmation link; the new address takes effect only when its link is followed, once.
func TestEmailChangeConfirmedByMail(t *testing.T) {
	t.Parallel()
	b := setup(t, options{mail: true})
	m := newMailer(t, b)
	since := b.lastEvent()
	a := b.register("carol")
	if got := b.eventTypes(since); !slices.Equal(got, []string{"UserRegistered", "EmailConfirmationRequested"}) {
		t.Fatalf("registration events %v", got)
	}
	if got := b.scalar(`SELECT email_confirmed FROM users WHERE id = ?`, a.id.String()); got != "0" {
		t.Errorf("a new account's address is confirmed before its link: %s", got)
	}
	first := m.deliver(t, b, since)[0]
	b.must(204, req{method: "POST", path: "/api/v1/account/email/confirm", body: map[string]any{"token": first}})
	if got := b.scalar(`SELECT email_confirmed FROM users WHERE id = ?`, a.id.String()); got != "1" {
		t.Errorf("confirmed = %s", got)
	}

	since = b.lastEvent()
	b.must(202, req{method: "PUT", path: "/api/v1/account/email", token: a.token,
		body: map[string]any{"current_password": "password-carol", "email": "carol.new@example.test"}})
	if got := b.scalar(`SELECT email FROM users WHERE id = ?`, a.id.String()); got != "carol@example.test" {
		t.Errorf("the address changed before its confirmation: %q", got)
	}
	tok := m.deliver(t, b, since)[0]
	if to := m.srv.Messages()[1].To; len(to) != 1 || to[0] != "carol.new@example.test" {
		t.Errorf("the confirmation went to %v", to)
	}
	if r := b.do(req{method: "POST", path: "/api/v1/account/email/confirm", body: map[string]any{"token": "wrong"}}); r.status != 403 {
		t.Errorf("wrong token: %d", r.status)
	}
	b.must(204, req{method: "POST", path: "/api/v1/account/email/confirm", body: map[string]any{"token": tok}})
	if got := b.scalar(`SELECT email FROM users WHERE id = ?`, a.id.String()); got != "carol.new@example.test" {
		t.Errorf("email %q after the confirmation", got)
	}
	if r := b.do(req{method: "POST", path: "/api/v1/account/email/confirm", body: map[string]any{"token": tok}}); r.status != 403 {
		t.Errorf("reused confirmation: %d", r.status)
	}
	// An address another account has is refused at once.
	b.register("dave")
	if r := b.do(req{method: "PUT", path: "/api/v1/account/email", token: a.token,
		body: map[string]any{"current_password": "password-carol", "email": "dave@example.test"}}); r.status != 400 {
		t.Errorf("a taken address: %d %s", r.status, r.body)
	}
}

// TestResendConfirmation: an unconfirmed address gets its link again, and the newest link
// confirms it; a confirmed address is a 400, and an instance without mail answers 501.
func TestResendConfirmation(t *testing.T) {
	t.Parallel()
	b := setup(t, options{mail: true})
	m := newMailer(t, b)
	since := b.lastEvent()
	a := b.register("dora")
	m.deliver(t, b, since) // the registration's link, lost
	since = b.lastEvent()
	b.must(202, req{method: "POST", path: "/api/v1/account/email/resend", token: a.token})
	if got := b.eventTypes(since); !slices.Equal(got, []string{"EmailConfirmationRequested"}) {
		t.Fatalf("resend events %v", got)
	}
	tok := m.deliver(t, b, since)[0]
	b.must(204, req{method: "POST", path: "/api/v1/account/email/confirm", body: map[string]any{"token": tok}})
	if got := b.scalar(`SELECT email_confirmed FROM users WHERE id = ?`, a.id.String()); got != "1" {
		t.Fatalf("confirmed = %s after the resent link", got)
	}
	if r := b.do(req{method: "POST", path: "/api/v1/account/email/resend", token: a.token}); r.status != 400 {
		t.Errorf("resend for a confirmed address: %d, want 400", r.status)
	}
	if r := b.do(req{method: "POST", path: "/api/v1/account/email/resend"}); r.status != 401 {
		t.Errorf("resend without a token: %d, want 401", r.status)
	}
	off := setup(t)
	o := off.register("erin")
	if r := off.do(req{method: "POST", path: "/api/v1/account/email/resend", token: o.token}); r.status != 501 {
		t.Errorf("resend without mail: %d, want 501", r.status)
	}
}
