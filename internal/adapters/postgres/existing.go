package postgres

import (
	"context"
	"fmt"
)

// OpenExisting opens the database at url for the operators' commands, which never migrate one: a
// database that is not migrated (a mistyped DATABASE_URL naming an empty database), migrated to
// an older schema than this binary's, or left dirty by a failed migration is refused until a
// server or worker has migrated it.
func OpenExisting(ctx context.Context, url string, opts ...Option) (*Store, error) {
	s, err := Open(ctx, url, opts...)
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
		return fmt.Errorf("the database is not a migrated moviesdiary database (check DATABASE_URL; a server or worker migrates it at its first start): %w", err)
	case dirty:
		return fmt.Errorf("schema version %d is dirty (a migration failed); see the server's log", v)
	case v < latest:
		return fmt.Errorf("schema version %d, this binary needs %d: start the server or a worker once to migrate it", v, latest)
	}
	return nil
}
