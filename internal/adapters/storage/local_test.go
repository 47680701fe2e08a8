package storage_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"moviesdiary/internal/adapters/storage"
	"moviesdiary/internal/domain"
)

func open(t *testing.T) (*storage.Local, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "images")
	l, err := storage.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, dir
}

func TestPutGetDelete(t *testing.T) {
	t.Parallel()
	l, dir := open(t)
	ctx := context.Background()
	if err := l.Put(ctx, "posters/abc", []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := l.Put(ctx, "posters/abc", []byte("two")); err != nil {
		t.Fatal(err)
	}
	got, err := l.Get(ctx, "posters/abc")
	if err != nil || string(got) != "two" {
		t.Fatalf("Get = %q, %v", got, err)
	}
	if ok, err := l.Exists(ctx, "posters/abc"); !ok || err != nil {
		t.Fatalf("Exists = %v, %v", ok, err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "posters"))
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after two puts, want 1 (no temp file left)", len(entries))
	}
	for range 2 {
		if err := l.Delete(ctx, "posters/abc"); err != nil {
			t.Fatalf("Delete (a missing object is success): %v", err)
		}
	}
	if _, err := l.Get(ctx, "posters/abc"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("Get after delete = %v, want not found", err)
	}
	if ok, _ := l.Exists(ctx, "posters/abc"); ok {
		t.Error("Exists after delete")
	}
}

// TestKeysCannotEscape: no key reaches a file outside the directory, whatever its spelling, and
// a symlink planted inside cannot lead out either.
func TestKeysCannotEscape(t *testing.T) {
	t.Parallel()
	l, dir := open(t)
	outside := filepath.Join(filepath.Dir(dir), "secret")
	if err := os.WriteFile(outside, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, key := range []string{"../secret", "..", ".", "", "/etc/passwd", "a/../../secret", "a//b", `..\secret`,
		"posters/.tmp-123", "a/b/c/d", "x\x00y", "%2e%2e/secret", "link"} {
		if _, err := l.Get(ctx, key); err == nil {
			t.Errorf("Get(%q) succeeded", key)
		}
		if err := l.Put(ctx, key, []byte("x")); err == nil && key != "link" {
			t.Errorf("Put(%q) succeeded", key)
		}
	}
	if b, _ := os.ReadFile(outside); !bytes.Equal(b, []byte("secret")) {
		t.Errorf("the file outside was changed to %q", b)
	}
}

// TestConcurrentPutsOfOneKey: writers racing on one key leave one whole object.
func TestConcurrentPutsOfOneKey(t *testing.T) {
	t.Parallel()
	l, dir := open(t)
	ctx := context.Background()
	want := bytes.Repeat([]byte("p"), 1<<20)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if err := l.Put(ctx, "posters/race", want); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := l.Get(ctx, "posters/race")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("after racing puts: %d bytes, %v", len(got), err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "posters"))
	if len(entries) != 1 {
		t.Errorf("%d entries, want 1", len(entries))
	}
}

// TestLocalIsPrivate: stored images and their directories are the server's alone (0600, 0700).
func TestLocalIsPrivate(t *testing.T) {
	l, dir := open(t)
	if err := l.Put(context.Background(), "posters/a/b.webp", []byte("x")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "posters"), filepath.Join(dir, "posters", "a")} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v (%v), want 0700", p, fi.Mode().Perm(), err)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "posters", "a", "b.webp")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("image mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
}
