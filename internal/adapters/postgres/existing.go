package postgres

import (
	"context"

	"moviesdiary/internal/adapters/sqlstore"
)

// OpenExisting opens the database at url for the operators' commands, which never migrate one: a
// database that is not migrated (a mistyped DATABASE_URL naming an empty database), migrated to
// an older schema than this binary's, or left dirty by a failed migration is refused until a
// server or worker has migrated it.
func OpenExisting(ctx context.Context, url string, opts ...Option) (*Store, error) {
	s, err := Open(ctx, url, opts...)
	return sqlstore.OpenedMigrated(ctx, s, err, "the database", LatestVersion)
}
