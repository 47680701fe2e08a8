package sqlstore

import (
	"context"
	"fmt"
)

// CheckSchema is nil when a database read at schema version v is migrated to latest, this
// binary's version, or beyond (a newer binary migrated it, and migrations only add). A database
// that could not be read (err: not a migrated moviesdiary database), that a failed migration
// left dirty, or that is older is refused with what an operator should do; what names the
// database in the message (its file, or "the database").
func CheckSchema(what string, v uint, dirty bool, err error, latest uint) error {
	switch {
	case err != nil:
		return fmt.Errorf("%s is not a migrated moviesdiary database (check DATA_DIR or DATABASE_URL; a server or worker migrates it at its first start): %w", what, err)
	case dirty:
		return fmt.Errorf("%s: schema version %d is dirty (a migration failed); see the server's log", what, v)
	case v < latest:
		return fmt.Errorf("%s: schema version %d, this binary needs %d: start the server or a worker once to migrate it", what, v, latest)
	}
	return nil
}

// Versioned is an opened store whose schema version can be read.
type Versioned interface {
	Version(ctx context.Context) (v uint, dirty bool, err error)
	Close() error
}

// OpenedMigrated returns s, opened by an operator's command (which never migrates), when its
// schema is this binary's latest or beyond (CheckSchema, naming it what); otherwise it closes s
// and returns why.
func OpenedMigrated[S Versioned](ctx context.Context, s S, openErr error, what string, latest func() (uint, error)) (S, error) {
	var zero S
	if openErr != nil {
		return zero, openErr
	}
	want, err := latest()
	if err == nil {
		v, dirty, verr := s.Version(ctx)
		err = CheckSchema(what, v, dirty, verr, want)
	}
	if err != nil {
		s.Close()
		return zero, err
	}
	return s, nil
}
