package postgres

import (
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
)

// The domain tables keep SQLite's encodings (migrations/postgres/embed.go), so the rows here
// read and write the same values as the SQLite adapter's.

// uniqueViolation is PostgreSQL's SQLSTATE for a UNIQUE or PRIMARY KEY violation.
const uniqueViolation = "23505"

// uniqueConstraint returns the name of the UNIQUE or PRIMARY KEY constraint err violated (such
// as users_email_key), and whether err is such a violation.
func uniqueConstraint(err error) (string, bool) {
	var e *pgconn.PgError
	if errors.As(err, &e) && e.Code == uniqueViolation {
		return e.ConstraintName, true
	}
	return "", false
}

// isUnique reports whether err is a UNIQUE or PRIMARY KEY violation.
func isUnique(err error) bool {
	_, ok := uniqueConstraint(err)
	return ok
}
