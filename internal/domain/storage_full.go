package domain

import "errors"

// ErrStorageFull matches every StorageFullError: a write failed for want of space, which
// retrying later (once space is freed) fixes, unlike a failure of ours.
var ErrStorageFull = errors.New("storage full")

// StorageFullError is a write refused because its storage has no space left (SQLite's
// SQLITE_FULL, a file write's ENOSPC). The HTTP layer answers it 503 with Retry-After.
type StorageFullError struct {
	// Storage names what is full, for the client and the log: "database", "image storage".
	Storage string
	Err     error
}

// Error names the storage and the underlying failure.
func (e *StorageFullError) Error() string { return e.Storage + " is full: " + e.Err.Error() }

// Unwrap returns the underlying failure.
func (e *StorageFullError) Unwrap() error { return e.Err }

// Is matches ErrStorageFull.
func (e *StorageFullError) Is(target error) bool { return target == ErrStorageFull }
