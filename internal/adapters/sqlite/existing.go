package sqlite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrNoDatabase is returned by OpenExisting when no database file is at the path.
var ErrNoDatabase = errors.New("sqlite: no database")

// OpenExisting opens the database at path for the operators' commands, which never create or
// migrate one: no file there is ErrNoDatabase (a mistyped DATA_DIR must not answer with an empty
// new database), and a schema older than this binary's, or left dirty by a failed migration, is
// refused until a server or worker has migrated it.
func OpenExisting(ctx context.Context, path string, opts ...Option) (*Store, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w at %s (check DATA_DIR or DATABASE_URL; a server or worker creates it at its first start)", ErrNoDatabase, path)
	case err != nil:
		return nil, fmt.Errorf("open database: %w", err)
	case fi.IsDir():
		return nil, fmt.Errorf("%w at %s: it is a directory", ErrNoDatabase, path)
	}
	s, err := Open(ctx, path, opts...)
	if err != nil {
		return nil, err
	}
	if err := s.checkSchema(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// checkSchema is nil when the database is migrated to this binary's latest version (or beyond:
// a newer binary migrated it, and migrations only add).
func (s *Store) checkSchema(ctx context.Context) error {
	latest, err := LatestVersion()
	if err != nil {
		return err
	}
	v, dirty, err := s.Version(ctx)
	switch {
	case err != nil:
		return fmt.Errorf("%s is not a migrated moviesdiary database: %w", s.path, err)
	case dirty:
		return fmt.Errorf("%s: schema version %d is dirty (a migration failed); see the server's log", s.path, v)
	case v < latest:
		return fmt.Errorf("%s: schema version %d, this binary needs %d: start the server or a worker once to migrate it", s.path, v, latest)
	}
	return nil
}
