package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestJWTSecretIsGeneratedOnceAndKept(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	first, generated, err := jwtSecret("", dir)
	if err != nil || !generated || len(first) < 32 {
		t.Fatalf("first start: %q, generated %v, %v", first, generated, err)
	}
	info, err := os.Stat(filepath.Join(dir, secretFile))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("secret file: %v, mode %v; want 0600", err, info.Mode())
	}
	second, generated, err := jwtSecret("", dir)
	if err != nil || generated || string(second) != string(first) {
		t.Errorf("second start: generated %v, same %v, %v", generated, string(second) == string(first), err)
	}
	configured, _, err := jwtSecret("a configured secret!", dir)
	if err != nil || string(configured) != "a configured secret!" {
		t.Errorf("JWT_SECRET set: %q, %v", configured, err)
	}
}
