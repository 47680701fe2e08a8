package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"moviesdiary/internal/domain"
)

// probeBytes is how much room the readiness probes ask for: a few pages of the database and a
// file of that size beside it.
const probeBytes = 16 << 10

// probeFile is the file beside the database the directory probe rewrites (and leaves: it is
// rewritten in place each time, so a failed probe leaves nothing new behind).
const probeFile = ".moviesdiary-write-probe"

// CheckWritable reports whether the database can take writes now: the file system of its
// directory takes a small file, and the database can grow by a few pages (a blob inserted into
// storage_probe and rolled back, so nothing is written to the WAL). Both report a full
// storage as a *domain.StorageFullError. It serves readiness: the server is not ready while
// writes would fail for want of space, and is again as soon as space returns.
func (s *Store) CheckWritable(ctx context.Context) error {
	if err := s.probeDirectory(); err != nil {
		return err
	}
	tx, err := s.write.BeginTxx(ctx, nil)
	if err != nil {
		return storageFull(fmt.Errorf("write probe: begin: %w", err))
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO storage_probe (b) VALUES (zeroblob(?))`, probeBytes); err != nil {
		return storageFull(fmt.Errorf("write probe: %w", err))
	}
	return nil
}

// probeDirectory writes probeBytes to probeFile in the database's directory.
func (s *Store) probeDirectory() error {
	path := filepath.Join(filepath.Dir(s.path), probeFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err == nil {
		_, err = f.Write(make([]byte, probeBytes))
		err = errors.Join(err, f.Close())
	}
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return &domain.StorageFullError{Storage: "data directory", Err: fmt.Errorf("write probe %s: %w", path, err)}
	case err != nil:
		return fmt.Errorf("write probe: %w", err)
	}
	return nil
}
