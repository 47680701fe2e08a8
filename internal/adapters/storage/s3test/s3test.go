// Package s3test runs a real S3 server on loopback for tests: Versity's versitygw over a POSIX
// directory in t.TempDir(), with SigV4 credentials, built with `go build` from the module proxy
// (its own module in ./versitygw, pinned there, so its dependencies stay out of moviesdiary's
// go.mod).
//
// The binary is built once per gateway version and kept in the user cache directory
// ($XDG_CACHE_HOME or ~/.cache, under moviesdiary/), under a file lock so parallel test packages
// build it once. A cold build costs about three CPU-minutes (six on a busy 2-core machine); a
// build with a warm Go build cache about 15 s; a kept binary nothing.
//
// Offline, with the gateway's modules not yet in the module cache, the build fails and so does
// the test, or under testtool's fast switch (make test-fast) the test is skipped saying so.
package s3test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"moviesdiary/internal/adapters/storage"
	"moviesdiary/internal/testtool"
)

// Credentials and region of every test server.
const (
	AccessKey = "moviesdiary-test"
	SecretKey = "moviesdiary-test-secret-key"
	Region    = "us-east-1"
)

// Server is a running gateway.
type Server struct {
	// Endpoint is its base URL, http://127.0.0.1:port.
	Endpoint string
	// Dir is the gateway's root: each bucket a directory, each object a file.
	Dir  string
	bin  string
	meta string
	logs string
	port string
	cmd  *exec.Cmd
	done chan error
}

// Start builds (or reuses) the gateway and starts it on a free loopback port; the test's
// clean-up stops it.
func Start(t testing.TB) *Server {
	t.Helper()
	dir := t.TempDir()
	s := &Server{bin: Binary(t), Dir: filepath.Join(dir, "root"), meta: filepath.Join(dir, "meta"), logs: dir}
	for _, d := range []string{s.Dir, s.meta} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The port is free when chosen; another process may take it before the gateway binds it,
	// so a gateway that exits at once is started again on another.
	var err error
	for range 3 {
		if s.port, err = freePort(); err != nil {
			t.Fatal(err)
		}
		if err = s.start(); err == nil {
			t.Cleanup(s.Stop)
			return s
		}
	}
	t.Fatalf("s3test: the gateway did not start: %v", err)
	return nil
}

// Restart starts a stopped gateway again, on the same port and directory (its buckets and
// objects are still there).
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if err := s.start(); err != nil {
		t.Fatalf("s3test: restart: %v", err)
	}
}

// start runs the gateway on s.port and waits until it answers.
func (s *Server) start() error {
	s.Endpoint = "http://127.0.0.1:" + s.port
	s.done = make(chan error, 1)
	log, err := os.OpenFile(filepath.Join(s.logs, "gateway-"+s.port+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	// The metadata (Content-Type, ETag) goes to a sidecar directory rather than xattrs, so the
	// temp dir's file system need not support them.
	s.cmd = exec.Command(s.bin, "--port", "127.0.0.1:"+s.port, "--access", AccessKey, "--secret", SecretKey,
		"--region", Region, "--quiet", "posix", "--sidecar", s.meta, s.Dir)
	s.cmd.Stdout, s.cmd.Stderr = log, log
	if err := s.cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	go func() { s.done <- s.cmd.Wait(); log.Close() }()
	if err := s.waitReady(); err != nil {
		s.Stop()
		out, _ := os.ReadFile(log.Name())
		return fmt.Errorf("%w; its output: %s", err, out)
	}
	return nil
}

// waitReady waits until the gateway answers HTTP, or has exited.
func (s *Server) waitReady() error {
	deadline := time.Now().Add(30 * time.Second)
	client := &http.Client{Timeout: time.Second}
	for time.Now().Before(deadline) {
		select {
		case err := <-s.done:
			s.done <- err
			return fmt.Errorf("the gateway exited: %v", err)
		default:
		}
		if resp, err := client.Get(s.Endpoint + "/"); err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case err := <-s.done:
			s.done <- err
			return fmt.Errorf("the gateway exited: %v", err)
		case <-time.After(20 * time.Millisecond): // a poll interval, not a synchronisation
		}
	}
	return fmt.Errorf("no answer from %s within 30s", s.Endpoint)
}

// Stop kills the gateway and waits for it (a test of an outage calls it early; calling it
// twice is harmless).
func (s *Server) Stop() {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
	}
	err := <-s.done
	s.done <- err
}

// Config is the store configuration for a bucket of this server (path style: the gateway
// serves no bucket domains).
func (s *Server) Config(bucket string) storage.S3Config {
	return storage.S3Config{Endpoint: s.Endpoint, Bucket: bucket, Region: Region, AccessKey: AccessKey,
		SecretKey: SecretKey, PathStyle: storage.PathStyleOn, Timeout: 10 * time.Second}
}

// Bucket creates a bucket through the S3 API and returns the store configuration for it.
func (s *Server) Bucket(t testing.TB, name string) storage.S3Config {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.client(t).MakeBucket(ctx, name, minio.MakeBucketOptions{Region: Region}); err != nil {
		t.Fatalf("s3test: make bucket %s: %v", name, err)
	}
	return s.Config(name)
}

// Open starts a server, creates the bucket "images" and opens the store on it.
func Open(t testing.TB) (*storage.S3, *Server) {
	t.Helper()
	srv := Start(t)
	store, err := storage.OpenS3(context.Background(), srv.Bucket(t, "images"))
	if err != nil {
		t.Fatal(err)
	}
	return store, srv
}

// gateway is the gateway binary, built from its pin module (./versitygw).
var gateway = &testtool.Pinned{Tool: testtool.S3Gateway, Module: "internal/adapters/storage/s3test/versitygw",
	Package: "github.com/versity/versitygw/cmd/versitygw", Name: "versitygw"}

// Binary returns the path of the gateway binary, building it on first use. When it cannot be
// built (offline, typically) or MOVIESDIARY_TEST_WITHOUT names s3-gateway, the test ends as
// testtool.Missing says: a failure, or a skip under the fast switch.
func Binary(t testing.TB) string {
	t.Helper()
	return gateway.Binary(t)
}

// freePort returns a loopback TCP port free at the moment.
func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	_, port, err := net.SplitHostPort(ln.Addr().String())
	return port, err
}

// ContentType is the Content-Type the server keeps for an object.
func (s *Server) ContentType(t testing.TB, bucket, key string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	info, err := s.client(t).StatObject(ctx, bucket, key, minio.StatObjectOptions{})
	if err != nil {
		t.Fatalf("s3test: stat %s/%s: %v", bucket, key, err)
	}
	return info.ContentType
}

func (s *Server) client(t testing.TB) *minio.Client {
	t.Helper()
	client, err := minio.New(strings.TrimPrefix(s.Endpoint, "http://"), &minio.Options{
		Creds: credentials.NewStaticV4(AccessKey, SecretKey, ""), Region: Region, BucketLookup: minio.BucketLookupPath})
	if err != nil {
		t.Fatal(err)
	}
	return client
}
