// Package smtp sends the instance's mail through an SMTP server with github.com/wneessen/go-mail,
// which writes the headers a mail needs (Date, Message-ID, MIME-Version, an RFC 2047 encoded
// UTF-8 subject, a quoted-printable body) and speaks STARTTLS, implicit TLS and AUTH.
package smtp

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"time"

	gomail "github.com/wneessen/go-mail"

	"moviesdiary/internal/usecase/mail"
)

// The TLS modes (SMTP_TLS).
const (
	StartTLS = "starttls"
	TLS      = "tls"
	NoTLS    = "none"
)

// TimeoutDefault bounds one connection's dialogue: a mail server that hangs must not hold a
// handler for long (the engine retries).
const TimeoutDefault = 30 * time.Second

// Config is the mail server's settings.
type Config struct {
	Host string
	Port int
	// Username and Password authenticate with AUTH PLAIN (only over TLS); empty: no AUTH.
	Username, Password string
	// From is the sender (From:), "Name <address>" or an address.
	From string
	// TLS is StartTLS (required: a server that does not offer it is refused), TLS (implicit) or
	// NoTLS.
	TLS string
	// RootCAs are the certificates to trust besides the system's (SMTP_CA_FILE); nil for the
	// system's only.
	RootCAs *x509.CertPool
	// InsecureSkipVerify accepts any certificate.
	InsecureSkipVerify bool
	// Timeout bounds one connection; default TimeoutDefault.
	Timeout time.Duration
}

// Sender sends messages, one connection each (mail is rare: a reset, a confirmation).
type Sender struct {
	cfg Config
}

// New checks the settings and builds the sender; it does not connect.
func New(cfg Config) (*Sender, error) {
	cfg.TLS = cmp.Or(cfg.TLS, StartTLS)
	cfg.Timeout = cmp.Or(cfg.Timeout, TimeoutDefault)
	switch cfg.TLS {
	case StartTLS, TLS, NoTLS:
	default:
		return nil, fmt.Errorf("smtp: TLS mode %q (starttls, tls or none)", cfg.TLS)
	}
	if _, err := gomail.NewClient(cfg.Host, options(cfg)...); err != nil {
		return nil, fmt.Errorf("smtp: %w", err)
	}
	if err := gomail.NewMsg().From(cfg.From); err != nil {
		return nil, fmt.Errorf("smtp: sender %q: %w", cfg.From, err)
	}
	return &Sender{cfg: cfg}, nil
}

// LoadCAFile reads a PEM file of certificates to trust (SMTP_CA_FILE) into a pool that also
// holds the system's roots.
func LoadCAFile(path string) (*x509.CertPool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	return pool, nil
}

func options(cfg Config) []gomail.Option {
	opts := []gomail.Option{gomail.WithPort(cfg.Port), gomail.WithTimeout(cfg.Timeout),
		gomail.WithTLSConfig(&tls.Config{ServerName: cfg.Host, RootCAs: cfg.RootCAs, MinVersion: tls.VersionTLS12,
			InsecureSkipVerify: cfg.InsecureSkipVerify}), //nolint:gosec // only when SMTP_INSECURE_SKIP_VERIFY asks
	}
	switch cfg.TLS {
	case TLS:
		opts = append(opts, gomail.WithSSL())
	case NoTLS:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	if cfg.Username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthPlain), gomail.WithUsername(cfg.Username),
			gomail.WithPassword(cfg.Password))
	}
	return opts
}

// Send delivers m to the mail server; an error (the server down, a 4xx or 5xx reply, a
// certificate it cannot trust) means it was not accepted.
func (s *Sender) Send(ctx context.Context, m mail.Message) error {
	msg := gomail.NewMsg(gomail.WithCharset(gomail.CharsetUTF8), gomail.WithEncoding(gomail.EncodingQP))
	if err := msg.From(s.cfg.From); err != nil {
		return fmt.Errorf("from: %w", err)
	}
	if err := msg.To(m.To...); err != nil {
		return fmt.Errorf("to: %w", err)
	}
	msg.Subject(m.Subject)
	msg.SetMessageIDWithValue(m.ID)
	msg.SetDateWithValue(cmp.Or(m.Date, time.Now()))
	msg.SetGenHeader(gomail.HeaderXAutoResponseSuppress, "All")
	msg.SetGenHeader("Auto-Submitted", "auto-generated")
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	c, err := gomail.NewClient(s.cfg.Host, options(s.cfg)...)
	if err != nil {
		return err
	}
	if err := c.DialAndSendWithContext(ctx, msg); err != nil {
		return fmt.Errorf("smtp %s:%d: %w", s.cfg.Host, s.cfg.Port, err)
	}
	return nil
}
