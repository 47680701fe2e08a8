package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// secretFile is where a generated JWT secret is kept, inside DATA_DIR.
const secretFile = "jwt_secret"

// jwtSecret returns configured if set; otherwise the secret kept in dataDir, generating and
// storing a random one (0600) on the first start so tokens survive restarts.
func jwtSecret(configured, dataDir string) ([]byte, bool, error) {
	if configured != "" {
		return []byte(configured), false, nil
	}
	path := filepath.Join(dataDir, secretFile)
	b, err := os.ReadFile(path)
	if err == nil {
		s := strings.TrimSpace(string(b))
		if len(s) < 32 {
			return nil, false, fmt.Errorf("JWT secret file %s is too short; delete it to generate a new one", path)
		}
		return []byte(s), false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, false, fmt.Errorf("read JWT secret: %w", err)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, false, fmt.Errorf("create data directory: %w", err)
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return nil, false, fmt.Errorf("generate JWT secret: %w", err)
	}
	s := hex.EncodeToString(raw)
	// O_EXCL: when two servers start together, one writes and the other reads the winner's.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return jwtSecret("", dataDir)
	}
	if err != nil {
		return nil, false, fmt.Errorf("store JWT secret: %w", err)
	}
	if _, err := f.WriteString(s + "\n"); err != nil {
		f.Close()
		return nil, false, fmt.Errorf("store JWT secret: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, false, fmt.Errorf("store JWT secret: %w", err)
	}
	return []byte(s), true, nil
}
