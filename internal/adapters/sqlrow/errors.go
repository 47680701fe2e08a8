package sqlrow

import (
	"database/sql"
	"errors"
	"fmt"

	"moviesdiary/internal/domain"
)

// NotFound turns sql.ErrNoRows into a KindNotFound error with msg, and wraps anything else.
func NotFound(err error, msg string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return domain.NotFound("%s", msg)
	}
	return fmt.Errorf("%s: %w", msg, err)
}

// OneRow turns an UPDATE or DELETE that matched nothing into a not-found error naming what.
func OneRow(res interface{ RowsAffected() (int64, error) }, what string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return domain.Errorf(domain.KindNotFound, "Entity not found: %s", what)
	}
	return nil
}
