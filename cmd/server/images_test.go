package main

import (
	"context"
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
// running; with the bucket there, the server starts and keeps nothing on disk.
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
	select {
	case <-addr:
	case err := <-errc:
		t.Fatalf("run with the bucket there: %v", err)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "images")); err == nil {
		t.Error("an images directory was made in DATA_DIR with IMAGE_STORAGE=s3")
	}
}
