// Package mail is the mail the instance sends, from the worker through the outbox: password
// reset and e-mail confirmation links, and the admins' notice of a new account. Each handler
// reads current state (a link already used, an account deleted: nothing is sent) and returns the
// mail server's refusal as an error, so the delivery engine retries with its backoff and in the
// end dead-letters the event: an outage loses no mail.
package mail

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/auth"
)

// Message is one mail to send.
type Message struct {
	// ID is the Message-ID without its angle brackets; it derives from the event id (below).
	ID      string
	To      []string
	Subject string
	// Text is the plain-text body (UTF-8).
	Text string
	Date time.Time
}

// Sender sends a message through the mail server; an error means it was not accepted.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// Store is what the handlers read and write.
type Store interface {
	// MailLink is a requested link with its account's username; KindNotFound once the account
	// is gone.
	MailLink(ctx context.Context, id uuid.UUID) (domain.MailLink, error)
	// SetMailLinkToken stores the hash of a link's token, replacing an earlier one; false when
	// the link is gone or used.
	SetMailLinkToken(ctx context.Context, id uuid.UUID, tokenHash string) (bool, error)
	// AdminEmails are every admin's address.
	AdminEmails(ctx context.Context) ([]string, error)
	// UserByID returns the user, or KindNotFound.
	UserByID(ctx context.Context, id uuid.UUID) (domain.User, error)
}

// The handlers' ledger names and event types (cmd/worker registers them when mail is set up).
const (
	LinksName  = "mail.links"
	NoticeName = "mail.registration-notice"
)

// LinksTypes are the events whose link the Links handler mails; NoticeTypes the Notice's.
var (
	LinksTypes  = []string{"PasswordResetRequested", "EmailConfirmationRequested"}
	NoticeTypes = []string{"UserRegistered"}
)

// Config is the handlers' settings.
type Config struct {
	// BaseURL is the instance's public URL (BASE_URL): the links point there, and its host
	// names the instance in the mails and in the Message-IDs.
	BaseURL string
	Log     *slog.Logger
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// Handlers send the mail.
type Handlers struct {
	store Store
	send  Sender
	cfg   Config
	host  string
}

// New builds the handlers.
func New(store Store, send Sender, cfg Config) (*Handlers, error) {
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || u.Hostname() == "" {
		return nil, fmt.Errorf("mail: BASE_URL %q has no host", cfg.BaseURL)
	}
	cfg.Log = cmp.Or(cfg.Log, slog.Default())
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Handlers{store: store, send: send, cfg: cfg, host: u.Hostname()}, nil
}

// messageID is a mail's Message-ID: the event id (the link's id for a row of a foreign writer,
// which has none) at the instance's host, so a mail sent again for the same event is
// recognisable as such. A link's mail adds the attempt: each attempt mints a new token (the
// earlier one stops working), so the message differs and must not be taken for the earlier
// one by a mail client that keeps one message per Message-ID.
func (h *Handlers) messageID(eventID string, fallback uuid.UUID, attempt int) string {
	id := cmp.Or(eventID, fallback.String())
	if attempt > 0 {
		id = fmt.Sprintf("%s.%d", id, attempt)
	}
	return id + "@" + h.host
}

// Links mails a password reset or e-mail confirmation link. The event names the link's row; the
// token is minted here and only its hash stored, so no working link is ever in the outbox or on
// the bus (the trade-off: a retry mints a new token, replacing the one of an attempt whose mail
// may have left before a crash, so only the latest mail's link works). A link already used, an
// account gone, or a link whose hour ran out before it could be sent: nothing is sent.
func (h *Handlers) Links(ctx context.Context, eventID string, attempt int, e domain.Event) error {
	var linkID uuid.UUID
	switch ev := e.(type) {
	case domain.PasswordResetRequested:
		linkID = ev.LinkID
	case domain.EmailConfirmationRequested:
		linkID = ev.LinkID
	default:
		return domain.Permanent(fmt.Errorf("mail links: unexpected event %s", e.EventType()))
	}
	l, err := h.store.MailLink(ctx, linkID)
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	now := h.cfg.Now()
	if l.Used {
		return nil
	}
	if !now.Before(l.ExpiresAt) {
		h.cfg.Log.WarnContext(ctx, "a mailed link expired before it could be sent; the user must ask again",
			"event_id", eventID, "kind", string(l.Kind))
		return nil
	}
	token, err := newToken()
	if err != nil {
		return err
	}
	ok, err := h.store.SetMailLinkToken(ctx, l.ID, auth.HashToken(token))
	if err != nil || !ok {
		return err
	}
	m := Message{ID: h.messageID(eventID, l.ID, max(attempt, 1)), To: []string{l.Email}, Date: now}
	valid := l.ExpiresAt.Sub(now).Round(time.Minute)
	switch l.Kind {
	case domain.MailPasswordReset:
		m.Subject = "Reset your password on " + h.host
		m.Text = fmt.Sprintf("Hello %s,\n\nsomeone (hopefully you) asked to reset the password of your account on %s.\n"+
			"Choose a new one here (the link works once, for %s):\n\n%s\n\n"+
			"If you did not ask, ignore this mail: your password stays as it is.\n",
			l.Username, h.host, valid, h.cfg.BaseURL+"/password-reset?token="+token)
	default:
		m.Subject = "Confirm your e-mail address on " + h.host
		m.Text = fmt.Sprintf("Hello %s,\n\nplease confirm that %s is the e-mail address of your account on %s\n"+
			"(the link works once, for %s):\n\n%s\n\nIf you did not ask for this, ignore this mail.\n",
			l.Username, l.Email, h.host, valid, h.cfg.BaseURL+"/confirm-email?token="+token)
	}
	if err := h.send.Send(ctx, m); err != nil {
		return fmt.Errorf("mail %s link: %w", l.Kind, err)
	}
	return nil
}

// Notice tells every admin of a new account, above all one that waits for their approval. The
// message is the same on every attempt, and so is its Message-ID.
func (h *Handlers) Notice(ctx context.Context, eventID string, _ int, e domain.Event) error {
	ev, ok := e.(domain.UserRegistered)
	if !ok {
		return domain.Permanent(fmt.Errorf("registration notice: unexpected event %s", e.EventType()))
	}
	u, err := h.store.UserByID(ctx, ev.UserID)
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	admins, err := h.store.AdminEmails(ctx)
	if err != nil {
		return err
	}
	var to []string
	for _, a := range admins {
		if !strings.EqualFold(a, u.Email) {
			to = append(to, a)
		}
	}
	if len(to) == 0 {
		return nil
	}
	m := Message{ID: h.messageID(eventID, ev.UserID, 0), To: to, Date: h.cfg.Now()}
	if ev.Pending && u.Pending {
		m.Subject = fmt.Sprintf("New account waiting for approval on %s: %s", h.host, u.Username)
		m.Text = fmt.Sprintf("%s (%s) registered on %s and waits for an admin's approval.\n\n"+
			"Approve the account with\n\n  server admin users approve %s\n\n"+
			"or POST %s/api/v1/admin/users/%s/approve.\n", u.Username, u.Email, h.host, u.Username, h.cfg.BaseURL, u.ID)
	} else {
		m.Subject = fmt.Sprintf("New account on %s: %s", h.host, u.Username)
		m.Text = fmt.Sprintf("%s (%s) registered on %s.\n\nTheir page: %s/u/%s\n", u.Username, u.Email, h.host, h.cfg.BaseURL, u.ID)
	}
	if err := h.send.Send(ctx, m); err != nil {
		return fmt.Errorf("registration notice: %w", err)
	}
	return nil
}

// newToken is a link's random token, as long as a refresh token.
func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("mail link token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
