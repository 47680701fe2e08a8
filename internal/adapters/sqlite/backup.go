package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Backup writes a consistent copy of the database at src to dest (which must not exist) while
// other processes keep writing: VACUUM INTO reads one snapshot in a single read transaction, so the
// copy holds every transaction committed before it began and none after, whole — never an event
// without the change that caused it. The copy is a compact, self-contained file (no -wal), made
// on a connection of its own so it waits for nobody and nobody waits for it.
func Backup(ctx context.Context, src, dest string) error {
	if fi, err := os.Stat(src); err != nil || fi.IsDir() {
		return fmt.Errorf("%w at %s (check DATA_DIR or DATABASE_URL)", ErrNoDatabase, src)
	}
	if _, err := os.Stat(dest); !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("backup: %s already exists", dest)
	}
	db, err := sql.Open(driverName, dsn(src, "deferred"))
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, dest); err != nil {
		return fmt.Errorf("backup: vacuum into %s: %w", dest, err)
	}
	return nil
}

// IntegrityCheck runs PRAGMA integrity_check on the database file at path (a backup, or a
// restored database before it is used) and returns nil when SQLite answers "ok".
func IntegrityCheck(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	db, err := sql.Open(driverName, "file:"+filepath.ToSlash(path)+"?mode=ro&_query_only=1")
	if err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return fmt.Errorf("integrity check of %s: %w", path, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		problems = append(problems, line)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("integrity check of %s: %w", path, err)
	}
	if len(problems) != 1 || problems[0] != "ok" {
		return fmt.Errorf("integrity check of %s failed: %s", path, strings.Join(problems, "; "))
	}
	return nil
}

// ErrInUse is returned by CheckUnused when another connection has the database open.
var ErrInUse = errors.New("sqlite: database in use")

// CheckUnused returns ErrInUse while any process has the database at path open, so a restore
// never replaces a file under a running server or worker. It asks for the exclusive lock WAL
// mode needs to be left, which SQLite grants only to the last connection; on success the file is
// in rollback-journal mode with its WAL folded in, ready to be replaced. No file is nil.
func CheckUnused(ctx context.Context, path string) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	db, err := sql.Open(driverName, "file:"+filepath.ToSlash(path)+"?_busy_timeout=0")
	if err != nil {
		return err
	}
	defer db.Close()
	var mode string
	err = db.QueryRowContext(ctx, `PRAGMA journal_mode = DELETE`).Scan(&mode)
	if err != nil && busyOrLocked(err) || err == nil && mode != "delete" {
		return fmt.Errorf("%w: %s is open in another process; stop the server and every worker first", ErrInUse, path)
	}
	return err
}

// SchemaVersion reads the migration version of the database file at path (a backup) read-only,
// without opening it as a store (which would switch it to WAL).
func SchemaVersion(ctx context.Context, path string) (uint, error) {
	db, err := sql.Open(driverName, "file:"+filepath.ToSlash(path)+"?mode=ro&_query_only=1")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var v uint
	if err := db.QueryRowContext(ctx, "SELECT version FROM "+migrationsTable+" LIMIT 1").Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version of %s: %w", path, err)
	}
	return v, nil
}
