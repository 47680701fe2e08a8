package config

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMailSettings: mail is off without SMTP_HOST; with it SMTP_FROM is required, the TLS mode
// and the port are checked, the password may come from SMTP_PASSWORD_FILE, and `config`
// masks it.
func TestMailSettings(t *testing.T) {
	clearEnv(t)
	c, err := Load()
	if err != nil || c.MailEnabled() || c.SMTPTLS != SMTPStartTLS || c.SMTPPortOrDefault() != 587 {
		t.Fatalf("defaults: %v, enabled %v, tls %q, port %d", err, c.MailEnabled(), c.SMTPTLS, c.SMTPPortOrDefault())
	}
	for _, bad := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"SMTP_HOST": "mail.example.org"}, "SMTP_FROM: required"},
		{map[string]string{"SMTP_HOST": "mail.example.org", "SMTP_FROM": "not an address"}, "SMTP_FROM: "},
		{map[string]string{"SMTP_TLS": "ssl"}, "SMTP_TLS: "},
		{map[string]string{"SMTP_PORT": "70000"}, "SMTP_PORT: "},
		{map[string]string{"NOTIFY_ADMINS_ON_REGISTRATION": "true"}, "NOTIFY_ADMINS_ON_REGISTRATION: needs mail"},
		{map[string]string{"SMTP_HOST": "m.example.org", "SMTP_FROM": "md@example.org", "SMTP_USERNAME": "md"}, "SMTP_USERNAME, SMTP_PASSWORD"},
	} {
		clearEnv(t)
		for k, v := range bad.env {
			t.Setenv(k, v)
		}
		if _, err := Load(); err == nil || !strings.HasPrefix(err.Error(), bad.want) {
			t.Errorf("%v: error %v, want %q", bad.env, err, bad.want)
		}
	}

	clearEnv(t)
	secret := filepath.Join(t.TempDir(), "smtp")
	if err := os.WriteFile(secret, []byte("s3cret-pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"SMTP_HOST": "mail.example.org", "SMTP_FROM": "Movies Diary <md@example.org>",
		"SMTP_USERNAME": "md", "SMTP_PASSWORD_FILE": secret, "SMTP_TLS": "tls"} {
		t.Setenv(k, v)
	}
	c, err = Load()
	if err != nil {
		t.Fatal(err)
	}
	if !c.MailEnabled() || c.SMTPPassword != "s3cret-pw" || c.SMTPPortOrDefault() != 465 {
		t.Errorf("loaded %+v", c.Mail)
	}
	var out bytes.Buffer
	if err := c.Print(&out); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "s3cret-pw") || !strings.Contains(out.String(), "SMTP_PASSWORD="+Masked) ||
		!strings.Contains(out.String(), "SMTP_PASSWORD_FILE="+secret) {
		t.Errorf("config output shows the password or misses it:\n%s", out.String())
	}
}
