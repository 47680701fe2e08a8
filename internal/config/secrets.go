package config

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// FileSuffix names the file form of a secret: JWT_SECRET_FILE=/run/secrets/jwt reads
// JWT_SECRET from that file (Docker and systemd credentials, Kubernetes secrets), so the value
// need not sit in the environment, where `docker inspect` and /proc show it.
const FileSuffix = "_FILE"

// maxSecretFileBytes bounds a secret file: a secret is a line, and a path naming the wrong file
// (a disk image) must not be read whole.
const maxSecretFileBytes = 64 << 10

// readSecretFiles fills every secret setting whose NAME_FILE is set from that file, its trailing
// newline trimmed, and records where it came from. Both forms set is an error: which one wins
// would be a guess.
func (c *Config) readSecretFiles(lookup func(string) (string, bool)) error {
	for _, s := range settings(c) {
		if !s.secret {
			continue
		}
		fileVar := s.name + FileSuffix
		path, ok := lookup(fileVar)
		if !ok || path == "" {
			continue
		}
		if v, _ := lookup(s.name); v != "" {
			return fmt.Errorf("%s: %s is set as well; set one of them", fileVar, s.name)
		}
		v, err := readSecretFile(path)
		if err != nil {
			return fmt.Errorf("%s: %w", fileVar, err)
		}
		s.field.SetString(v)
		if c.secretFiles == nil {
			c.secretFiles = map[string]string{}
		}
		c.secretFiles[s.name] = path
	}
	return nil
}

// readSecretFile is the first line-ish of path: the file without its trailing line break, which
// must leave something.
func readSecretFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("cannot read the secret: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFileBytes+1))
	if err != nil {
		return "", fmt.Errorf("cannot read the secret: %w", err)
	}
	if len(b) > maxSecretFileBytes {
		return "", fmt.Errorf("%s is over %d KiB, too large for a secret", path, maxSecretFileBytes>>10)
	}
	v := strings.TrimRight(string(b), "\r\n")
	if v == "" {
		return "", fmt.Errorf("%s is empty", path)
	}
	return v, nil
}
