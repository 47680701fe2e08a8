// Package storage is moviesdiary's object storage for images, shared by the server (which
// serves GET /images/{key} and stores uploads) and the worker (which writes posters and
// conversions and deletes unused ones). Two stores keep the same rules: Local, a directory both
// processes can reach (one host), and S3, a bucket of an S3-compatible object store (servers
// and workers on several hosts).
//
// The rules, whichever store: a key is checked by ValidKey before anything is touched; Put
// replaces the whole object at once (a reader sees the old object or the new one, never part);
// Exists probes the exact key; Get and Open of a missing key are KindNotFound; Delete of a
// missing key succeeds, so a clean-up can run twice.
package storage

import (
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"strings"

	"moviesdiary/internal/domain"
)

// keyPattern is what an object key may look like: one to three slash-separated segments of
// letters, digits, '.', '_' and '-', each starting with a letter or digit. No segment can be "."
// or "..", no key is absolute, and the temp files of Local.Put (".tmp-…") are not keys.
var keyPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}(/[A-Za-z0-9][A-Za-z0-9._-]{0,127}){0,2}$`)

// ValidKey reports whether key can name an object.
func ValidKey(key string) bool {
	return keyPattern.MatchString(key) && !strings.Contains(key, "..")
}

func checkKey(key string) error {
	if !ValidKey(key) {
		return domain.Permanent(domain.Invalid("storage: invalid object key %q", key))
	}
	return nil
}

// Store is an image store as the composition roots hold it: what the worker's handlers, the
// profile uploads and GET /images/{key} use (each through its own smaller port), and Close.
type Store interface {
	Exists(ctx context.Context, key string) (bool, error)
	Get(ctx context.Context, key string) ([]byte, error)
	Put(ctx context.Context, key string, data []byte) error
	Delete(ctx context.Context, key string) error
	// Open opens the object for streaming; the file also seeks, and its Stat gives the size
	// and the modification time.
	Open(ctx context.Context, key string) (fs.File, error)
	// Ping checks that the store answers (the server's readiness).
	Ping(ctx context.Context) error
	Close() error
}

var (
	_ Store = (*Local)(nil)
	_ Store = (*S3)(nil)
)

// Kinds of store, as IMAGE_STORAGE names them.
const (
	KindLocal = "local"
	KindS3    = "s3"
)

// Config chooses and configures the image store.
type Config struct {
	// Kind is KindLocal (the default when empty) or KindS3.
	Kind string
	// Dir is Local's directory.
	Dir string
	// S3 configures the S3 store.
	S3 S3Config
}

// Open opens the store c names. An S3 store is probed first (see OpenS3), so a wrong endpoint,
// key or bucket stops the process at start-up instead of failing every image later.
func Open(ctx context.Context, c Config) (Store, error) {
	switch c.Kind {
	case "", KindLocal:
		return OpenLocal(c.Dir)
	case KindS3:
		return OpenS3(ctx, c.S3)
	}
	return nil, fmt.Errorf("storage: unknown kind %q (local or s3)", c.Kind)
}
