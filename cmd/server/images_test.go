package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"moviesdiary/internal/adapters/storage"
	"moviesdiary/internal/adapters/storage/s3test"
	"moviesdiary/internal/config"
)

// TestImageStoreDefaultsMatchThePackage: the config's image store values are the storage
// adapter's (config imports no adapter, so the two spell them separately).
func TestImageStoreDefaultsMatchThePackage(t *testing.T) {
	d := config.Defaults()
	if d["IMAGE_STORAGE"] != storage.KindLocal || d["IMAGE_S3_PATH_STYLE"] != storage.PathStyleAuto ||
		d["IMAGE_S3_TIMEOUT"] != storage.S3TimeoutDefault.String() {
		t.Errorf("defaults IMAGE_STORAGE=%q IMAGE_S3_PATH_STYLE=%q IMAGE_S3_TIMEOUT=%q; the package's are %q, %q, %s",
			d["IMAGE_STORAGE"], d["IMAGE_S3_PATH_STYLE"], d["IMAGE_S3_TIMEOUT"], storage.KindLocal, storage.PathStyleAuto,
			storage.S3TimeoutDefault)
	}
}

// TestServerStopsOnAMissingBucket: with IMAGE_STORAGE=s3 and a bucket that does not exist on
// the (real, running) S3 server, run stops at start-up naming the bucket, and leaves nothing
// running; with the bucket there, the server starts, keeps nothing on disk, and is ready until
// the S3 server goes away (then /ready answers 503 naming it).
func TestServerStopsOnAMissingBucket(t *testing.T) {
	srv := s3test.Start(t)
	dir := t.TempDir()
	for k, v := range map[string]string{"DATA_DIR": dir, "IMAGE_STORAGE": "s3", "IMAGE_S3_ENDPOINT": srv.Endpoint,
		"IMAGE_S3_BUCKET": "diary-images", "IMAGE_S3_ACCESS_KEY": s3test.AccessKey, "IMAGE_S3_SECRET_KEY": s3test.SecretKey,
		"IMAGE_S3_PATH_STYLE": "true"} {
		t.Setenv(k, v)
	}
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Host, cfg.Port, cfg.ServerMetricsAddr = "127.0.0.1", 0, ""
	err = run(context.Background(), cfg, testLog(t), time.Now, nil)
	if err == nil || !strings.Contains(err.Error(), `bucket "diary-images" does not exist`) {
		t.Fatalf("run = %v, want the missing bucket named", err)
	}
	// The gateway's process waiter is the test's own.
	goleak.VerifyNone(t, goleak.IgnoreAnyFunction("moviesdiary/internal/adapters/storage/s3test.(*Server).start.func1"))

	srv.Bucket(t, "diary-images")
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	errc := make(chan error, 1)
	go func() { errc <- run(ctx, cfg, testLog(t), time.Now, addr) }()
	var base string
	select {
	case a := <-addr:
		base = "http://" + a
	case err := <-errc:
		t.Fatalf("run with the bucket there: %v", err)
	}
	ready := func() (int, string) {
		resp, err := http.Get(base + "/ready")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := ready(); code != http.StatusOK {
		t.Fatalf("/ready with the bucket there = %d %s", code, body)
	}
	srv.Stop()
	if code, body := ready(); code != http.StatusServiceUnavailable || !strings.Contains(body, "unreachable") {
		t.Errorf("/ready with the S3 server gone = %d %s, want 503 naming it unreachable", code, body)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "images")); err == nil {
		t.Error("an images directory was made in DATA_DIR with IMAGE_STORAGE=s3")
	}
}
