package config

import (
	"fmt"
	"net/mail"
	"os"
	"strings"
)

// Mail is the SMTP server the worker sends mail through (password reset links, e-mail
// confirmations, the admins' notice of a registration). Mail is off while SMTP_HOST is unset:
// password reset then needs the admin's CLI, and e-mail changes take effect at once.
type Mail struct {
	SMTPHost string `envconfig:"SMTP_HOST"`
	// SMTPPort is the server's port; 0 takes the TLS mode's usual one (587 for starttls and
	// none, 465 for tls).
	SMTPPort     int    `envconfig:"SMTP_PORT" default:"0"`
	SMTPUsername string `envconfig:"SMTP_USERNAME"`
	SMTPPassword string `envconfig:"SMTP_PASSWORD" secret:"true"`
	// SMTPFrom is the sender address (From:); required with SMTP_HOST.
	SMTPFrom string `envconfig:"SMTP_FROM"`
	// SMTPTLS is how the connection is secured: starttls (required, the default), tls (implicit
	// TLS from the first byte) or none (plain text: a relay on the same host only).
	SMTPTLS string `envconfig:"SMTP_TLS" default:"starttls"`
	// SMTPCAFile is a PEM file of the CA (or self-signed certificate) to trust for the server,
	// besides the system's roots.
	SMTPCAFile string `envconfig:"SMTP_CA_FILE"`
	// SMTPInsecureSkipVerify accepts any server certificate (a test relay only).
	SMTPInsecureSkipVerify bool `envconfig:"SMTP_INSECURE_SKIP_VERIFY" default:"false"`
	// NotifyAdminsOnRegistration mails every admin when an account is created (above all one
	// waiting for approval).
	NotifyAdminsOnRegistration bool `envconfig:"NOTIFY_ADMINS_ON_REGISTRATION" default:"false"`
}

// The SMTP_TLS modes.
const (
	SMTPStartTLS = "starttls"
	SMTPTLS      = "tls"
	SMTPNoTLS    = "none"
)

// MailEnabled reports whether mail is configured (SMTP_HOST set).
func (c Config) MailEnabled() bool { return strings.TrimSpace(c.SMTPHost) != "" }

// SMTPPortOrDefault is SMTP_PORT, or the TLS mode's usual port.
func (c Config) SMTPPortOrDefault() int {
	switch {
	case c.SMTPPort != 0:
		return c.SMTPPort
	case c.SMTPTLS == SMTPTLS:
		return 465
	}
	return 587
}

func (c Config) validateMail() error {
	switch c.SMTPTLS {
	case SMTPStartTLS, SMTPTLS, SMTPNoTLS:
	default:
		return fmt.Errorf("SMTP_TLS: %q is not a mode (starttls, tls or none)", c.SMTPTLS)
	}
	if c.SMTPPort < 0 || c.SMTPPort > 65535 {
		return fmt.Errorf("SMTP_PORT: %d is not a TCP port (1-65535)", c.SMTPPort)
	}
	if !c.MailEnabled() {
		if c.NotifyAdminsOnRegistration {
			return fmt.Errorf("NOTIFY_ADMINS_ON_REGISTRATION: needs mail (SMTP_HOST)")
		}
		return nil
	}
	if c.SMTPFrom == "" {
		return fmt.Errorf("SMTP_FROM: required with SMTP_HOST (the sender address, e.g. moviesdiary@example.org)")
	}
	if _, err := mail.ParseAddress(c.SMTPFrom); err != nil {
		return fmt.Errorf("SMTP_FROM: %q is not an address", c.SMTPFrom)
	}
	if (c.SMTPUsername == "") != (c.SMTPPassword == "") {
		return fmt.Errorf("SMTP_USERNAME, SMTP_PASSWORD: set both (AUTH PLAIN) or neither")
	}
	if c.SMTPCAFile != "" {
		if _, err := os.Stat(c.SMTPCAFile); err != nil {
			return fmt.Errorf("SMTP_CA_FILE: %w", err)
		}
	}
	return nil
}
