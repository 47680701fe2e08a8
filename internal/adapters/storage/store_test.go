package storage_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"sync"
	"testing"

	"moviesdiary/internal/adapters/storage"
	"moviesdiary/internal/adapters/storage/s3test"
	"moviesdiary/internal/domain"
)

// stores are the implementations the contract below runs against: the directory and a real S3
// server on loopback.
var stores = map[string]func(t *testing.T) storage.Store{
	"local": func(t *testing.T) storage.Store {
		l, err := storage.OpenLocal(filepath.Join(t.TempDir(), "images"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	},
	"s3": func(t *testing.T) storage.Store {
		s, _ := s3test.Open(t)
		return s
	},
}

// TestStoreContract: both stores keep the same rules (see the package comment).
func TestStoreContract(t *testing.T) {
	t.Parallel()
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := open(t)
			t.Run("PutGetProbeDelete", func(t *testing.T) { testPutGetProbeDelete(t, s) })
			t.Run("MissingKey", func(t *testing.T) { testMissingKey(t, s) })
			t.Run("OpenStreamsAndSeeks", func(t *testing.T) { testOpen(t, s) })
			t.Run("InvalidKeys", func(t *testing.T) { testInvalidKeys(t, s) })
			t.Run("ConcurrentPuts", func(t *testing.T) { testConcurrentPuts(t, s) })
		})
	}
}

func testPutGetProbeDelete(t *testing.T, s storage.Store) {
	ctx := context.Background()
	if err := s.Put(ctx, "posters/abc", []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "posters/abc", []byte("two")); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, "posters/abc"); err != nil || string(got) != "two" {
		t.Fatalf("Get = %q, %v; want the second put", got, err)
	}
	if ok, err := s.Exists(ctx, "posters/abc"); !ok || err != nil {
		t.Fatalf("Exists = %v, %v", ok, err)
	}
	// The probe is of the exact key: neither a prefix nor a longer key counts.
	for _, other := range []string{"posters/ab", "posters/abcd", "posters"} {
		if ok, err := s.Exists(ctx, other); ok || err != nil {
			t.Errorf("Exists(%q) = %v, %v; only posters/abc is stored", other, ok, err)
		}
	}
	if err := s.Put(ctx, "empty", nil); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, "empty"); err != nil || len(got) != 0 {
		t.Errorf("Get(empty) = %q, %v", got, err)
	}
	for range 2 {
		if err := s.Delete(ctx, "posters/abc"); err != nil {
			t.Fatalf("Delete (twice: a missing object is success): %v", err)
		}
	}
	if _, err := s.Get(ctx, "posters/abc"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("Get after delete = %v, want not found", err)
	}
	if ok, err := s.Exists(ctx, "posters/abc"); ok || err != nil {
		t.Errorf("Exists after delete = %v, %v", ok, err)
	}
}

func testMissingKey(t *testing.T, s storage.Store) {
	ctx := context.Background()
	if err := s.Delete(ctx, "posters/never-stored"); err != nil {
		t.Errorf("Delete of a key never stored: %v", err)
	}
	if _, err := s.Get(ctx, "posters/never-stored"); !errors.Is(err, domain.ErrNotFound) || domain.IsPermanent(err) {
		t.Errorf("Get of a missing key = %v, want not found", err)
	}
	if _, err := s.Open(ctx, "posters/never-stored"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("Open of a missing key = %v, want not found", err)
	}
}

func testOpen(t *testing.T, s storage.Store) {
	ctx := context.Background()
	data := make([]byte, 100_000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	if err := s.Put(ctx, "covers/big", data); err != nil {
		t.Fatal(err)
	}
	f, err := s.Open(ctx, "covers/big")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() != int64(len(data)) || st.ModTime().IsZero() || st.IsDir() {
		t.Fatalf("Stat = %+v, %v", st, err)
	}
	rs, ok := f.(io.ReadSeeker)
	if !ok {
		t.Fatalf("%T does not seek", f)
	}
	// Sniff, seek back, read it all: what GET /images/{key} does.
	head := make([]byte, 512)
	if _, err := io.ReadFull(rs, head); err != nil || !bytes.Equal(head, data[:512]) {
		t.Fatalf("head: %v", err)
	}
	if _, err := rs.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if all, err := io.ReadAll(rs); err != nil || !bytes.Equal(all, data) {
		t.Fatalf("ReadAll after seeking back: %d bytes, %v", len(all), err)
	}
	// A range in the middle, and one across the head's end.
	for _, r := range [][2]int64{{70_000, 100}, {500, 40}, {99_990, 10}} {
		if _, err := rs.Seek(r[0], io.SeekStart); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, r[1])
		if _, err := io.ReadFull(rs, got); err != nil || !bytes.Equal(got, data[r[0]:r[0]+r[1]]) {
			t.Errorf("range %v: %v", r, err)
		}
	}
	if end, err := rs.Seek(0, io.SeekEnd); err != nil || end != int64(len(data)) {
		t.Errorf("Seek(0, end) = %d, %v", end, err)
	}
	if n, err := rs.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("Read at the end = %d, %v; want EOF", n, err)
	}
}

func testInvalidKeys(t *testing.T, s storage.Store) {
	ctx := context.Background()
	for _, key := range []string{"../secret", "..", ".", "", "/etc/passwd", "a/../../secret", "a//b", `..\secret`,
		"posters/.tmp-123", "a/b/c/d", "x\x00y", "%2e%2e/secret", "posters/"} {
		if err := s.Put(ctx, key, []byte("x")); !errors.Is(err, domain.ErrInvalid) || !domain.IsPermanent(err) {
			t.Errorf("Put(%q) = %v, want a permanent invalid key", key, err)
		}
		if _, err := s.Get(ctx, key); !errors.Is(err, domain.ErrInvalid) {
			t.Errorf("Get(%q) = %v", key, err)
		}
		if _, err := s.Exists(ctx, key); !errors.Is(err, domain.ErrInvalid) {
			t.Errorf("Exists(%q) = %v", key, err)
		}
		if _, err := s.Open(ctx, key); !errors.Is(err, domain.ErrInvalid) {
			t.Errorf("Open(%q) = %v", key, err)
		}
		if err := s.Delete(ctx, key); !errors.Is(err, domain.ErrInvalid) {
			t.Errorf("Delete(%q) = %v", key, err)
		}
	}
}

// testConcurrentPuts: writers racing on one key leave one whole object.
func testConcurrentPuts(t *testing.T, s storage.Store) {
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if err := s.Put(ctx, "posters/race", bytes.Repeat([]byte{byte('a' + i)}, 1<<20)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := s.Get(ctx, "posters/race")
	if err != nil || len(got) != 1<<20 || !bytes.Equal(got, bytes.Repeat(got[:1], 1<<20)) {
		t.Fatalf("after racing puts: %d bytes (one writer's whole object expected), %v", len(got), err)
	}
}
