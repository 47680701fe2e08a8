package storage_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/adapters/storage"
	"moviesdiary/internal/adapters/storage/s3test"
	"moviesdiary/internal/adapters/tmdb/tmdbtest"
	"moviesdiary/internal/domain"
)

// TestS3StoresContentType: an object carries the type sniffed from its bytes, so the bucket
// serves well on its own too (behind a CDN); the gateway keeps it beside the file.
func TestS3StoresContentType(t *testing.T) {
	t.Parallel()
	s, srv := s3test.Open(t)
	ctx := context.Background()
	for key, data := range map[string][]byte{
		"posters/jpeg": tmdbtest.PosterJPEG(),
		"notes/text":   []byte("plain words"),
	} {
		if err := s.Put(ctx, key, data); err != nil {
			t.Fatal(err)
		}
	}
	for key, want := range map[string]string{"posters/jpeg": "image/jpeg", "notes/text": "text/plain; charset=utf-8"} {
		if got := srv.ContentType(t, "images", key); got != want {
			t.Errorf("%s: Content-Type %q, want %q", key, got, want)
		}
	}
	// Objects are files under the bucket's directory, whole after each put.
	if b, err := os.ReadFile(filepath.Join(srv.Dir, "images", "notes", "text")); err != nil || string(b) != "plain words" {
		t.Errorf("the gateway's file: %q, %v", b, err)
	}
}

// TestS3MissingBucketStopsStartUp: a bucket that does not exist is a start-up error naming it.
func TestS3MissingBucketStopsStartUp(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	_, err := storage.OpenS3(context.Background(), srv.Config("no-such-bucket"))
	if err == nil || !strings.Contains(err.Error(), `bucket "no-such-bucket" does not exist`) {
		t.Fatalf("OpenS3 on a missing bucket = %v, want an error naming the bucket", err)
	}
	// Wrong credentials are refused with their own message.
	c := srv.Bucket(t, "images")
	c.SecretKey = "wrong-secret-key"
	if _, err := storage.OpenS3(context.Background(), c); err == nil || !strings.Contains(err.Error(), "refused the credentials") {
		t.Fatalf("OpenS3 with a wrong secret = %v, want the credentials named", err)
	}
	// A malformed endpoint never reaches the network.
	c.Endpoint = "s3.example.test:9000"
	if _, err := storage.OpenS3(context.Background(), c); err == nil || !strings.Contains(err.Error(), "must be http:// or https://") {
		t.Fatalf("OpenS3 with no scheme = %v", err)
	}
}

// TestS3ServerDownIsTransient: with the server gone, every operation fails within its timeout
// with an error the delivery engine retries (not permanent, not "not found"), and a server that
// is down at start-up stops the process with a message saying so.
func TestS3ServerDownIsTransient(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	c := srv.Bucket(t, "images")
	c.Timeout = 3 * time.Second
	s, err := storage.OpenS3(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Put(ctx, "posters/kept", []byte("x")); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	ops := map[string]func() error{
		"put":    func() error { return s.Put(ctx, "posters/new", []byte("y")) },
		"get":    func() error { _, err := s.Get(ctx, "posters/kept"); return err },
		"exists": func() error { _, err := s.Exists(ctx, "posters/kept"); return err },
		"delete": func() error { return s.Delete(ctx, "posters/kept") },
		"open":   func() error { _, err := s.Open(ctx, "posters/kept"); return err },
	}
	for op, call := range ops {
		start := time.Now()
		err := call()
		if err == nil || domain.IsPermanent(err) || errors.Is(err, domain.ErrNotFound) {
			t.Errorf("%s with the server down = %v, want a transient error", op, err)
		}
		if d := time.Since(start); d > c.Timeout+2*time.Second {
			t.Errorf("%s took %s, past its %s timeout", op, d, c.Timeout)
		}
	}
	if _, err := storage.OpenS3(ctx, c); err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Errorf("OpenS3 with the server down = %v, want it named unreachable", err)
	}
}

// TestOpenChoosesTheStore: Config.Kind picks the store; an unknown kind is refused.
func TestOpenChoosesTheStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	local, err := storage.Open(ctx, storage.Config{Dir: t.TempDir()})
	if _, ok := local.(*storage.Local); !ok || err != nil {
		t.Fatalf("default kind: %T, %v; want *storage.Local", local, err)
	}
	local.Close()
	srv := s3test.Start(t)
	s3, err := storage.Open(ctx, storage.Config{Kind: storage.KindS3, S3: srv.Bucket(t, "images")})
	if _, ok := s3.(*storage.S3); !ok || err != nil {
		t.Fatalf("kind s3: %T, %v", s3, err)
	}
	if _, err := storage.Open(ctx, storage.Config{Kind: "ftp"}); err == nil {
		t.Error("kind ftp was accepted")
	}
}

// TestPingFollowsTheStore: Ping answers nil while the store is there and an error once it is
// gone (the S3 server stopped, the image directory removed), so the server's /ready reports it.
func TestPingFollowsTheStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := s3test.Start(t)
	c := srv.Bucket(t, "images")
	c.Timeout = 3 * time.Second
	s3, err := storage.OpenS3(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	defer s3.Close()
	dir := filepath.Join(t.TempDir(), "images")
	local, err := storage.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	for name, s := range map[string]storage.Store{"s3": s3, "local": local} {
		if err := s.Ping(ctx); err != nil {
			t.Fatalf("%s: Ping with the store there = %v", name, err)
		}
	}
	srv.Stop()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := s3.Ping(ctx); err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Errorf("s3: Ping with the server stopped = %v, want it named unreachable", err)
	}
	if err := local.Ping(ctx); err == nil {
		t.Error("local: Ping with the directory removed = nil")
	}
}
