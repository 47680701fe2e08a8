package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/buildinfo"
	"moviesdiary/internal/config"
)

// A backup directory holds what an instance cannot be rebuilt without:
const (
	backupDB       = "moviesdiary.db" // the database, one consistent snapshot (no -wal)
	backupImages   = "images"         // posters and photos (IMAGE_STORAGE_PATH)
	backupManifest = "manifest.json"  // what was taken, when, by which version
	// and secretFile (jwt_secret), the generated JWT secret, when JWT_SECRET is not set.
)

// manifest describes a backup.
type manifest struct {
	CreatedAt     time.Time `json:"created_at"`
	Version       string    `json:"version"`
	SchemaVersion uint      `json:"schema_version"`
	Images        int       `json:"images"`
	JWTSecret     bool      `json:"jwt_secret"`
}

// backupCommand writes `server backup DIR`: the database through SQLite's VACUUM INTO (consistent
// while the server and workers write), then the images and the JWT secret. DIR must not exist or
// be empty; it is created 0700 since it holds the secret and every password hash.
func backupCommand(ctx context.Context, cfg config.Config, args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet("backup", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	positional, err := parseInterleaved(flags, args)
	if err != nil {
		return err
	}
	if len(positional) != 1 {
		return fmt.Errorf("%w: backup takes one directory", errUsage)
	}
	dir := positional[0]
	if _, pg := cfg.PostgresURL(); pg {
		return errNotSQLite
	}
	if err := emptyDir(dir); err != nil {
		return err
	}
	path, err := cfg.DatabasePath()
	if err != nil {
		return err
	}
	// Images are copied before and after the snapshot: an image stored meanwhile is in the
	// second pass, and one the snapshot references but the worker replaced afterwards (a WebP
	// conversion) is in the first.
	// Images in an S3 bucket are not copied: the object store has its own tools for that.
	imagesDir, localImages := filepath.Join(dir, backupImages), cfg.ImageStorage != "s3"
	before, after := 0, 0
	if localImages {
		if before, err = copyTree(cfg.ImageDir(), imagesDir); err != nil {
			return fmt.Errorf("copy images: %w", err)
		}
	}
	if err := sqlite.Backup(ctx, path, filepath.Join(dir, backupDB)); err != nil {
		return err
	}
	if localImages {
		if after, err = copyTree(cfg.ImageDir(), imagesDir); err != nil {
			return fmt.Errorf("copy images: %w", err)
		}
	}
	m := manifest{CreatedAt: time.Now().UTC(), Version: buildinfo.Version(), Images: before + after}
	if m.SchemaVersion, err = sqlite.SchemaVersion(ctx, filepath.Join(dir, backupDB)); err != nil {
		return err
	}
	secret := filepath.Join(cfg.DataDir, secretFile)
	switch _, err := copyFile(secret, filepath.Join(dir, secretFile), 0o600); {
	case err == nil:
		m.JWTSecret = true
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("copy JWT secret: %w", err)
	}
	if err := writeManifest(dir, m); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s (schema version %d), %d image(s)", path, m.SchemaVersion, m.Images)
	switch {
	case m.JWTSecret:
		fmt.Fprintf(stdout, " and the JWT secret")
	case cfg.JWTSecret != "":
		fmt.Fprintf(stdout, "; JWT_SECRET is set in the environment: keep it with the backup")
	}
	fmt.Fprintf(stdout, " to %s\n", dir)
	if !localImages {
		fmt.Fprintf(stdout, "images are in S3 bucket %s at %s and are not in this backup: copy the bucket with the "+
			"object store's tools (e.g. mc mirror or rclone sync)\n", cfg.S3Bucket, cfg.S3Endpoint)
	}
	return nil
}

// restoreCommand puts a backup in place: `server restore DIR --yes`. It checks the backup's
// integrity first and refuses while a server or worker has the database open. The database is
// written beside the live one and renamed over it, and the old -wal and -shm go, so a crash
// leaves either the old database or the restored one. The next start migrates a backup taken by
// an older version up.
func restoreCommand(ctx context.Context, cfg config.Config, args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet("restore", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	yes := flags.Bool("yes", false, "replace an existing database")
	positional, err := parseInterleaved(flags, args)
	if err != nil {
		return err
	}
	if len(positional) != 1 {
		return fmt.Errorf("%w: restore takes one backup directory", errUsage)
	}
	dir := positional[0]
	if _, pg := cfg.PostgresURL(); pg {
		return errNotSQLite
	}
	src := filepath.Join(dir, backupDB)
	if err := sqlite.IntegrityCheck(ctx, src); err != nil {
		return fmt.Errorf("%s is not a usable backup: %w", dir, err)
	}
	path, err := cfg.DatabasePath()
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); err == nil && !*yes {
		return fmt.Errorf("%w: %s exists; restore replaces it: add --yes", errUsage, path)
	}
	if err := sqlite.CheckUnused(ctx, path); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".restoring"
	if _, err := copyFile(src, tmp, 0o644); err != nil {
		return fmt.Errorf("copy database: %w", err)
	}
	for _, stale := range []string{path + "-wal", path + "-shm"} {
		if err := os.Remove(stale); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if err := sqlite.IntegrityCheck(ctx, path); err != nil {
		return err
	}
	images := 0
	if cfg.ImageStorage != "s3" {
		if images, err = copyTree(filepath.Join(dir, backupImages), cfg.ImageDir()); err != nil {
			return fmt.Errorf("restore images: %w", err)
		}
	} else if _, err := os.Stat(filepath.Join(dir, backupImages)); err == nil {
		fmt.Fprintf(stdout, "the backup's images were not restored: images are in S3 bucket %s; copy %s into it "+
			"(e.g. mc mirror or rclone copy)\n", cfg.S3Bucket, filepath.Join(dir, backupImages))
	}
	restoredSecret := false
	switch _, err := copyFile(filepath.Join(dir, secretFile), filepath.Join(cfg.DataDir, secretFile), 0o600); {
	case err == nil:
		restoredSecret = true
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("restore JWT secret: %w", err)
	}
	fmt.Fprintf(stdout, "restored %s from %s, %d image(s)", path, dir, images)
	if restoredSecret {
		fmt.Fprintf(stdout, " and the JWT secret")
	}
	fmt.Fprintln(stdout, "; start the server (it migrates an older backup up)")
	return nil
}

func writeManifest(dir string, m manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, backupManifest), append(b, '\n'), 0o600)
}

// emptyDir creates dir (0700) or accepts an existing empty one.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return os.MkdirAll(dir, 0o700)
	case err != nil:
		return err
	case len(entries) > 0:
		return fmt.Errorf("%s is not empty: back up into a new directory", dir)
	}
	return os.Chmod(dir, 0o700)
}

// copyTree copies the regular files under src into dst, skipping those dst already has with the
// same size, and returns how many it copied. A missing src copies nothing.
func copyTree(src, dst string) (int, error) {
	n := 0
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == src {
			return fs.SkipAll
		}
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o700)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed while we walked (a converted original)
		}
		if err != nil {
			return err
		}
		if have, err := os.Stat(target); err == nil && have.Size() == info.Size() {
			return nil
		}
		copied, err := copyFile(p, target, 0o644)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if copied {
			n++
		}
		return err
	})
	return n, err
}

// copyFile copies src to dst (replacing it) through a temporary file that is synced and renamed,
// so dst is never half written. It reports whether it copied; a missing src is fs.ErrNotExist.
func copyFile(src, dst string, perm os.FileMode) (bool, error) {
	in, err := os.Open(src)
	if err != nil {
		return false, err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return false, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*")
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, in); err != nil {
		tmp.Close()
		return false, err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return false, err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return false, err
	}
	if err := tmp.Close(); err != nil {
		return false, err
	}
	return true, os.Rename(tmp.Name(), dst)
}
