package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// perTx is how many events each load transaction writes: a backup holding a number of rows that
// is not a multiple of it would hold half a transaction.
const perTx = 5

// TestBackupUnderWriteLoadThenRestore writes transactions continuously while `server backup`
// runs, then restores the backup into a fresh data directory: the restored database passes
// PRAGMA integrity_check and holds exactly the rows the source had up to the snapshot (whole
// transactions, same ids, same payloads), with the images and the JWT secret.
func TestBackupUnderWriteLoadThenRestore(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	t.Setenv("DATA_DIR", src)
	path := filepath.Join(src, "moviesdiary.db")
	var write sqlite.WriteFunc
	store, err := sqlite.OpenMigrated(ctx, path, testLog(t), sqlite.WithMeasurementWriter(&write))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, _, err := jwtSecret("", src); err != nil {
		t.Fatal(err)
	}
	images := filepath.Join(src, "images", "posters")
	if err := os.MkdirAll(images, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(images, "poster.webp"), []byte("RIFF....WEBP"), 0o644); err != nil {
		t.Fatal(err)
	}

	// The load: one transaction of perTx events after another until stopped.
	var committed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			events := make([]domain.Event, perTx)
			for i := range events {
				events[i] = domain.SearchReindexRequested{}
			}
			err := write(ctx, func(tx *sqlx.Tx) error { return outbox.Insert(ctx, tx, time.Now(), events...) })
			if err != nil {
				t.Error(err)
				return
			}
			committed.Add(1)
		}
	})
	deliverytest.Eventually(t, 10*time.Second, "the load commits", func() bool { return committed.Load() > 50 })
	before := committed.Load()
	backup := filepath.Join(t.TempDir(), "backup")
	code, out, stderr := runCLI(t, "", "backup", backup)
	after := committed.Load()
	close(stop)
	wg.Wait()
	if code != 0 || !strings.Contains(out, "the JWT secret") {
		t.Fatalf("backup: exit %d %q %q", code, out, stderr)
	}
	if code, _, stderr := runCLI(t, "", "backup", backup); code != 1 || !strings.Contains(stderr, "not empty") {
		t.Fatalf("a second backup into the same directory: exit %d %q", code, stderr)
	}

	// A restore refuses while the database is open elsewhere (store is still open).
	if code, _, stderr := runCLI(t, "", "restore", backup, "--yes"); code != 1 || !strings.Contains(stderr, "stop the server") {
		t.Fatalf("restore over a database in use: exit %d %q", code, stderr)
	}

	dst := t.TempDir()
	t.Setenv("DATA_DIR", dst)
	if code, out, stderr := runCLI(t, "", "restore", backup); code != 0 || !strings.Contains(out, "1 image(s) and the JWT secret") {
		t.Fatalf("restore: exit %d %q %q", code, out, stderr)
	}
	if code, _, stderr := runCLI(t, "", "restore", backup); code != 2 || !strings.Contains(stderr, "--yes") {
		t.Fatalf("restore over an existing database without --yes: exit %d %q", code, stderr)
	}
	restored := filepath.Join(dst, "moviesdiary.db")
	if err := sqlite.IntegrityCheck(ctx, restored); err != nil {
		t.Fatal(err)
	}
	got := rows(t, restored)
	t.Logf("transactions committed before the backup %d, after it %d; restored %d rows", before, after, len(got))
	if n := int64(len(got)); n%perTx != 0 || n < before*perTx || n > after*perTx {
		t.Fatalf("restored %d rows: want whole transactions between %d and %d", n, before*perTx, after*perTx)
	}
	want := rows(t, path)[:len(got)]
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("row %d: restored %v, source %v", i, got[i], want[i])
		}
	}
	for _, f := range []string{"jwt_secret", "images/posters/poster.webp"} {
		a, _ := os.ReadFile(filepath.Join(src, f))
		b, err := os.ReadFile(filepath.Join(dst, f))
		if err != nil || string(a) != string(b) {
			t.Errorf("%s not restored: %v", f, err)
		}
	}
	// The restored database opens as a migrated store.
	s, err := sqlite.OpenExisting(ctx, restored)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

type outboxRow struct {
	id              int64
	eventID, typ    string
	payload, status string
}

// rows reads the whole outbox in id order.
func rows(t *testing.T, path string) []outboxRow {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rs, err := db.Query(`SELECT id, event_id, event_type, CAST(payload AS TEXT), status FROM event_queue ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	var out []outboxRow
	for rs.Next() {
		var r outboxRow
		if err := rs.Scan(&r.id, &r.eventID, &r.typ, &r.payload, &r.status); err != nil {
			t.Fatal(err)
		}
		if _, err := uuid.Parse(r.eventID); err != nil {
			t.Fatalf("row %d: event id %q", r.id, r.eventID)
		}
		out = append(out, r)
	}
	return out
}

// TestBackupDirHoldsOnlyTheSnapshot: the backup directory has the database (no -wal or -shm),
// the images, the secret and the manifest, private to the owner.
func TestBackupDirHoldsOnlyTheSnapshot(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	t.Setenv("DATA_DIR", src)
	store, err := sqlite.OpenMigrated(ctx, filepath.Join(src, "moviesdiary.db"), testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, _, err := jwtSecret("", src); err != nil {
		t.Fatal(err)
	}
	backup := filepath.Join(t.TempDir(), "b")
	if code, _, stderr := runCLI(t, "", "backup", backup); code != 0 {
		t.Fatalf("backup: exit %d %q", code, stderr)
	}
	entries, _ := os.ReadDir(backup)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "jwt_secret manifest.json moviesdiary.db" { // no images yet: no images/
		t.Errorf("backup holds %v", names)
	}
	if fi, err := os.Stat(backup); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("backup directory mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
	m, _ := os.ReadFile(filepath.Join(backup, "manifest.json"))
	latest, _ := sqlite.LatestVersion()
	if !strings.Contains(string(m), fmt.Sprintf(`"schema_version": %d`, latest)) || !strings.Contains(string(m), `"jwt_secret": true`) {
		t.Errorf("manifest %s", m)
	}
	if code, _, _ := runCLI(t, "", "backup"); code != 2 {
		t.Errorf("backup without a directory: exit %d, want 2", code)
	}
	if code, _, stderr := runCLI(t, "", "restore", t.TempDir()); code != 1 || !strings.Contains(stderr, "not a usable backup") {
		t.Errorf("restore of an empty directory: exit %d %q", code, stderr)
	}
}

// TestBackupWithImagesInS3: with IMAGE_STORAGE=s3 the backup copies no images (nor looks for
// a directory) and says where they are; a restore leaves the backup's images out and says how to
// copy them into the bucket.
func TestBackupWithImagesInS3(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	t.Setenv("DATA_DIR", src)
	for k, v := range map[string]string{"IMAGE_STORAGE": "s3", "IMAGE_S3_ENDPOINT": "http://127.0.0.1:1",
		"IMAGE_S3_BUCKET": "diary-images", "IMAGE_S3_ACCESS_KEY": "ak", "IMAGE_S3_SECRET_KEY": "sk"} {
		t.Setenv(k, v)
	}
	store, err := sqlite.OpenMigrated(ctx, filepath.Join(src, "moviesdiary.db"), testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	store.Close()
	backup := filepath.Join(t.TempDir(), "b")
	code, stdout, stderr := runCLI(t, "", "backup", backup)
	if code != 0 || !strings.Contains(stdout, "images are in S3 bucket diary-images") {
		t.Fatalf("backup: exit %d %q %q", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(backup, "images")); err == nil {
		t.Error("the backup has an images directory")
	}
	if err := os.MkdirAll(filepath.Join(backup, "images", "posters"), 0o755); err != nil { // as a local backup has
		t.Fatal(err)
	}
	code, stdout, stderr = runCLI(t, "", "restore", backup, "--yes")
	if code != 0 || !strings.Contains(stdout, "the backup's images were not restored") {
		t.Fatalf("restore: exit %d %q %q", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(src, "images")); err == nil {
		t.Error("restore made an images directory in DATA_DIR with IMAGE_STORAGE=s3")
	}
}
