package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"

	"golang.org/x/crypto/argon2"
)

// Hasher hashes passwords with argon2id into the PHC string form
// ($argon2id$v=19$m=…,t=…,p=…$salt$hash), so the parameters travel with each hash and can be
// raised later without breaking old ones.
type Hasher struct {
	Memory  uint32 // Memory is in KiB.
	Time    uint32
	Threads uint8
}

// DefaultHasher uses OWASP's argon2id minimum (19 MiB, 2 passes, 1 thread).
var DefaultHasher = Hasher{Memory: 19 * 1024, Time: 2, Threads: 1}

// dummyHash is verified against when a login names no user, to keep the timing equal. It is
// computed on first use or by PrepareLogins, not at package initialisation: one argon2id hash
// allocates its 19 MiB of memory, which every binary importing this package (the benchmark's
// worker child, for one) would otherwise carry in its heap from the start.
var dummyHash = sync.OnceValue(func() string {
	h, _ := DefaultHasher.Hash("not a password of anyone")
	return h
})

// PrepareLogins makes the dummy hash now, once per process: the server calls it before it
// serves, so that the first login naming no user takes no longer than the others. (New once
// started it on a goroutine nobody joined, which outlived the tests that built a Service.)
func PrepareLogins() { dummyHash() }

const (
	saltLen = 16
	keyLen  = 32
)

// Hash returns the encoded hash of password with a random salt.
func (h Hasher) Hash(password string) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("password salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, h.Time, h.Memory, h.Threads, keyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, h.Memory, h.Time, h.Threads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// Verify reports whether password matches encoded, using encoded's own parameters.
func (Hasher) Verify(password, encoded string) bool {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var version int
	var p Hasher
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &p.Threads); err != nil ||
		p.Time == 0 || p.Threads == 0 || p.Memory > 1<<22 {
		return false
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil {
		return false
	}
	want, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil || len(want) == 0 {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}
