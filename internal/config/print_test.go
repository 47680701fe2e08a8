package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrintShowsTheEffectiveSettingsWithSecretsMasked: every setting is listed with the value
// in effect, a secret masked (DATABASE_URL but its password), a file secret beside its file.
func TestPrintShowsTheEffectiveSettingsWithSecretsMasked(t *testing.T) {
	clearEnv(t)
	jwt := filepath.Join(t.TempDir(), "jwt")
	if err := os.WriteFile(jwt, []byte("jwt-secret-from-a-file-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("JWT_SECRET_FILE", jwt)
	t.Setenv("TMDB_API_KEY", "tmdb-key-inline")
	t.Setenv("DATABASE_URL", "postgres://md:db-password@db:5432/md?sslmode=disable&password=db-password")
	t.Setenv("PORT", "8080")
	t.Setenv("EVENT_QUEUE_CLAIM_LEASE", "2m")
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := c.Print(&out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, secret := range []string{"jwt-secret-from-a-file", "tmdb-key-inline", "db-password"} {
		if strings.Contains(text, secret) {
			t.Errorf("the printout shows the secret %q:\n%s", secret, text)
		}
	}
	for _, want := range []string{
		"\nPORT=8080\n", "\nEVENT_QUEUE_CLAIM_LEASE=2m0s\n", "\nDATA_DIR=./data\n", "\nJWT_SECRET_FILE=" + jwt + "\nJWT_SECRET=********\n",
		"\nTMDB_API_KEY=********\n", "\nDATABASE_URL=postgres://md:xxxxx@db:5432/md?password=xxxxx&sslmode=disable\n",
		"\nIMAGE_S3_SECRET_KEY=\n", "\nFEDERATION_SECURE_MODE=false\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the printout lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "\n") - 1 - len(c.secretFiles); n != len(Defaults()) {
		t.Errorf("%d settings printed, want all %d", n, len(Defaults()))
	}
}
