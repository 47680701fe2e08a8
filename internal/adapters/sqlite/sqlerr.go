package sqlite

import (
	"database/sql"
	"errors"
	"fmt"
	"syscall"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"

	"moviesdiary/internal/domain"
)

// timeLayout is how the domain tables store instants: RFC 3339 UTC with milliseconds, fixed
// width, so text order is time order.
const timeLayout = "2006-01-02T15:04:05.000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("stored time %q: %w", s, err)
	}
	return t.UTC(), nil
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

// notFound turns sql.ErrNoRows into a KindNotFound error with msg, and wraps anything else.
func notFound(err error, msg string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return domain.NotFound("%s", msg)
	}
	return fmt.Errorf("%s: %w", msg, err)
}

// nullString maps a *string to a column value.
func nullString(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// ptr returns the value of a nullable column as a pointer.
func ptr[T any](v sql.Null[T]) *T {
	if !v.Valid {
		return nil
	}
	return &v.V
}
