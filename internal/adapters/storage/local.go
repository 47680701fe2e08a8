package storage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"

	"moviesdiary/internal/domain"
)

// Local keeps objects as files under a directory. Every access goes through an os.Root, so even
// a key that slipped past ValidKey cannot reach outside the directory (no "..", no symlink out).
type Local struct {
	root *os.Root
}

// OpenLocal opens (creating it if needed) the directory dir.
func OpenLocal(dir string) (*Local, error) {
	if dir == "" {
		return nil, errors.New("storage: empty directory")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("storage: create %s: %w", dir, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", dir, err)
	}
	return &Local{root: root}, nil
}

// Close releases the directory.
func (l *Local) Close() error { return l.root.Close() }

// Ping checks that the image directory is still the one the store opened: one removed, or a
// volume unmounted or replaced under a running server, would otherwise fail only its image
// requests.
func (l *Local) Ping(context.Context) error {
	held, err := l.root.Stat(".")
	if err == nil {
		var now os.FileInfo
		if now, err = os.Stat(l.root.Name()); err == nil && !os.SameFile(held, now) {
			err = errors.New("the path now names another directory (a volume unmounted or replaced?)")
		}
	}
	if err != nil {
		return fmt.Errorf("storage: image directory %s: %w", l.root.Name(), err)
	}
	return nil
}

// Dir is the directory.
func (l *Local) Dir() string { return l.root.Name() }

// Put stores data under key atomically: it writes a temp file beside the object, syncs it and
// renames it over the key, so a reader (or a crash) sees the old object or the whole new one,
// never part of it.
func (l *Local) Put(ctx context.Context, key string, data []byte) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	dir := path.Dir(key)
	if dir != "." {
		if err := l.root.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("storage: put %s: %w", key, err)
		}
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := path.Join(dir, ".tmp-"+hex.EncodeToString(rnd[:]))
	f, err := l.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("storage: put %s: %w", key, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = l.root.Rename(tmp, key)
	}
	if err != nil {
		_ = l.root.Remove(tmp)
		return fmt.Errorf("storage: put %s: %w", key, err)
	}
	// The rename is durable once the directory is synced.
	if d, err := l.root.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// Open opens the object for reading (an *os.File); a missing one is KindNotFound.
func (l *Local) Open(_ context.Context, key string) (fs.File, error) {
	return l.open(key)
}

func (l *Local) open(key string) (*os.File, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	// Objects are regular files: a symlink or a directory under a key is not an object (and a
	// symlink out of the directory would be refused by the root anyway).
	if st, err := l.root.Lstat(key); err != nil || !st.Mode().IsRegular() {
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil, domain.NotFound("storage: no object %q", key)
		}
		return nil, fmt.Errorf("storage: open %s: %w", key, err)
	}
	f, err := l.root.Open(key)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, domain.NotFound("storage: no object %q", key)
	}
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", key, err)
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, domain.NotFound("storage: no object %q", key)
	}
	return f, nil
}

// Get reads the whole object; a missing one is KindNotFound.
func (l *Local) Get(_ context.Context, key string) ([]byte, error) {
	f, err := l.open(key)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("storage: get %s: %w", key, err)
	}
	buf := make([]byte, st.Size())
	if _, err := f.ReadAt(buf, 0); err != nil && st.Size() > 0 {
		return nil, fmt.Errorf("storage: get %s: %w", key, err)
	}
	return buf, nil
}

// Exists reports whether an object is stored under key.
func (l *Local) Exists(_ context.Context, key string) (bool, error) {
	if err := checkKey(key); err != nil {
		return false, err
	}
	st, err := l.root.Stat(key)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("storage: stat %s: %w", key, err)
	}
	return st.Mode().IsRegular(), nil
}

// Delete removes the object; a missing one is success, so deleting twice is harmless.
func (l *Local) Delete(_ context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	err := l.root.Remove(key)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return fmt.Errorf("storage: delete %s: %w", key, err)
}
