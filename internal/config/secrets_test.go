package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretsReadFromTheirFile: every secret has a NAME_FILE form; the value is the file's, its
// trailing newline trimmed.
func TestSecretsReadFromTheirFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	clearEnv(t)
	t.Setenv("JWT_SECRET_FILE", write("jwt", "a jwt secret of 32 bytes or so..\n"))
	t.Setenv("TMDB_API_KEY_FILE", write("tmdb", "tmdb-key\r\n"))
	t.Setenv("DATABASE_URL_FILE", write("db", "postgres://md:pw@db:5432/md\n"))
	t.Setenv("IMAGE_STORAGE", "s3")
	t.Setenv("IMAGE_S3_ENDPOINT", "http://s3.test:9000")
	t.Setenv("IMAGE_S3_BUCKET", "posters")
	t.Setenv("IMAGE_S3_ACCESS_KEY_FILE", write("access", "access-key"))
	t.Setenv("IMAGE_S3_SECRET_KEY_FILE", write("secret", "secret-key\n\n"))
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]string{
		"a jwt secret of 32 bytes or so..": c.JWTSecret, "tmdb-key": c.TMDBAPIKey,
		"postgres://md:pw@db:5432/md": c.DatabaseURL, "access-key": c.S3AccessKey, "secret-key": c.S3SecretKey,
	} {
		if got != name {
			t.Errorf("read %q, want %q", got, name)
		}
	}
}

// TestSecretFileMistakesNameTheVariable: both forms set, a missing or empty file stop start-up
// with one line naming the _FILE variable.
func TestSecretFileMistakesNameTheVariable(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	present := filepath.Join(dir, "key")
	if err := os.WriteFile(present, []byte("key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"TMDB_API_KEY": "inline", "TMDB_API_KEY_FILE": present}, "TMDB_API_KEY_FILE: TMDB_API_KEY is set as well"},
		{map[string]string{"JWT_SECRET_FILE": filepath.Join(dir, "missing")}, "JWT_SECRET_FILE: cannot read the secret"},
		{map[string]string{"DATABASE_URL_FILE": empty}, "DATABASE_URL_FILE: " + empty + " is empty"},
		{map[string]string{"JWT_SECRET_FILE": dir}, "JWT_SECRET_FILE: cannot read the secret"},
	} {
		clearEnv(t)
		for k, v := range c.env {
			t.Setenv(k, v)
		}
		_, err := Load()
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: error %v; want one line starting with %q", c.env, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "inline") {
			t.Errorf("%v: the error shows a secret: %v", c.env, err)
		}
	}
}

// TestEverySecretHasAFileForm ties the secret tag to the settings the README calls secrets.
func TestEverySecretHasAFileForm(t *testing.T) {
	var got []string
	for _, s := range settings(&Config{}) {
		if s.secret {
			got = append(got, s.name)
		}
	}
	want := "DATABASE_URL JWT_SECRET TMDB_API_KEY IMAGE_S3_ACCESS_KEY IMAGE_S3_SECRET_KEY OIDC_CLIENT_SECRET SMTP_PASSWORD"
	if strings.Join(got, " ") != want {
		t.Errorf("secret settings %v, want %s", got, want)
	}
}
