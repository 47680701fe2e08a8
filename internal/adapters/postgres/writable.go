package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"moviesdiary/internal/domain"
)

// probeBytes is how much room the readiness probe asks for: a few pages of the database.
const probeBytes = 16 << 10

// CheckWritable reports whether the database takes writes now: a blob is inserted into
// storage_probe and rolled back. A server out of disk space answers it with a
// *domain.StorageFullError; a read-only one (a standby, a database set read-only) with its
// error. It serves readiness, as the SQLite store's does (which also probes its data directory,
// a thing PostgreSQL's clients have none of).
func (s *Store) CheckWritable(ctx context.Context) error {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return storageFull(fmt.Errorf("write probe: begin: %w", err))
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO storage_probe (b) VALUES (decode(repeat('00', $1), 'hex'))`, probeBytes); err != nil {
		return storageFull(fmt.Errorf("write probe: %w", err))
	}
	return nil
}

// storageFull marks a failure for want of space (disk_full, SQLSTATE 53100) as a
// *domain.StorageFullError, so the caller can tell "try again later" from a failure of ours; any
// other error is returned as it is.
func storageFull(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "53100" {
		return &domain.StorageFullError{Storage: "database", Err: err}
	}
	return err
}
