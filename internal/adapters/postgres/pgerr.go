package postgres

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"moviesdiary/internal/domain"
)

// The domain tables keep SQLite's encodings (migrations/postgres/embed.go), so the rows here
// read and write the same values as the SQLite adapter's.

// timeLayout is how the domain tables store instants: RFC 3339 UTC with milliseconds, fixed
// width, so text order is time order (as on SQLite).
const timeLayout = "2006-01-02T15:04:05.000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("stored time %q: %w", s, err)
	}
	return t.UTC(), nil
}

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
