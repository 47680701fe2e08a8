package sqlite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"moviesdiary/internal/adapters/sqlstore"
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
	return sqlstore.OpenedMigrated(ctx, s, err, path, LatestVersion)
}
