package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func clearWebEnv(t *testing.T) {
	clearEnv(t)
	for _, v := range []string{"WEB_CLIENT_DIR", "CORS_ORIGINS"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
}

func TestWebDefaultsAndOrigins(t *testing.T) {
	clearWebEnv(t)
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if c.WebClientDir != "" || c.AllowedOrigins() != nil {
		t.Fatalf("web defaults: %+v, origins %v", c.Web, c.AllowedOrigins())
	}
	for raw, want := range map[string][]string{
		"*": nil,
		"http://localhost:5173, https://diary.example.org/": {"http://localhost:5173", "https://diary.example.org"},
	} {
		t.Setenv("CORS_ORIGINS", raw)
		c, err := Load()
		if err != nil || !slices.Equal(c.AllowedOrigins(), want) {
			t.Errorf("CORS_ORIGINS=%q: %v, %v; want %v", raw, c.AllowedOrigins(), err, want)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("<html>"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("WEB_CLIENT_DIR", dir)
	if c, err := Load(); err != nil || c.WebClientDir != dir {
		t.Errorf("WEB_CLIENT_DIR with an index.html: %q, %v", c.WebClientDir, err)
	}
}

func TestWebBadValues(t *testing.T) {
	for name, val := range map[string]string{
		"WEB_CLIENT_DIR": t.TempDir(), // no index.html
		"CORS_ORIGINS":   "http://localhost:5173,localhost:3000",
	} {
		for _, v := range []string{val, "*,http://a.test", "https://a.test/app", " , "} {
			if name == "WEB_CLIENT_DIR" && v != val {
				continue
			}
			clearWebEnv(t)
			t.Setenv(name, v)
			if _, err := Load(); err == nil || !strings.HasPrefix(err.Error(), name+":") {
				t.Errorf("%s=%q: error %v, want one naming the variable", name, v, err)
			}
		}
	}
}
