package sqlite

import (
	"errors"
	"syscall"

	"github.com/golang-migrate/migrate/v4/database"
	sqlite3 "github.com/mattn/go-sqlite3"

	"moviesdiary/internal/domain"
)

// busyOrLocked reports whether err is SQLite's SQLITE_BUSY ("database is locked": another
// connection holds the lock this one needs) or SQLITE_LOCKED (a table locked within the
// connection's shared cache): a conflict that passes, so the statement can be tried again.
// It matches the result code, not the message, and looks through golang-migrate's
// database.Error, which keeps the driver's error without unwrapping to it.
func busyOrLocked(err error) bool {
	var e sqlite3.Error
	if errors.As(err, &e) {
		return e.Code == sqlite3.ErrBusy || e.Code == sqlite3.ErrLocked
	}
	var me *database.Error
	if errors.As(err, &me) {
		return busyOrLocked(me.OrigErr)
	}
	var mv database.Error
	if errors.As(err, &mv) {
		return busyOrLocked(mv.OrigErr)
	}
	return false
}

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
