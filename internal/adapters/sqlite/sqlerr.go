package sqlite

import (
	"errors"
	"syscall"

	sqlite3 "github.com/mattn/go-sqlite3"

	"moviesdiary/internal/domain"
)

// isUnique reports whether err is a UNIQUE or PRIMARY KEY violation.
func isUnique(err error) bool {
	var e sqlite3.Error
	return errors.As(err, &e) && (e.ExtendedCode == sqlite3.ErrConstraintUnique ||
		e.ExtendedCode == sqlite3.ErrConstraintPrimaryKey)
}

// storageFull marks a write that failed for want of space — SQLITE_FULL (the disk, or
// max_page_count) or ENOSPC from the file system — as a *domain.StorageFullError, so the caller
// can tell "try again later" from a failure of ours; any other error is returned as it is.
func storageFull(err error) error {
	if err == nil || errors.Is(err, domain.ErrStorageFull) {
		return err
	}
	var e sqlite3.Error
	if errors.As(err, &e) && e.Code == sqlite3.ErrFull || errors.Is(err, syscall.ENOSPC) {
		return &domain.StorageFullError{Storage: "database", Err: err}
	}
	return err
}
