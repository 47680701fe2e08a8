package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"moviesdiary/internal/adapters/sqlrow"
)

// Secret returns the instance secret called name, storing generate's value first when there is
// none; created reports that this call stored it. Servers starting together agree on one value:
// the first insert wins and the others read it.
func (s *Store) Secret(ctx context.Context, name string, generate func() (string, error)) (value string, created bool, err error) {
	err = s.db.GetContext(ctx, &value, `SELECT value FROM instance_secrets WHERE name = $1`, name)
	if err == nil {
		return value, false, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", false, fmt.Errorf("read secret %s: %w", name, err)
	}
	fresh, err := generate()
	if err != nil {
		return "", false, err
	}
	err = s.db.GetContext(ctx, &value, `INSERT INTO instance_secrets (name, value, created_at) VALUES ($1, $2, $3)
		ON CONFLICT (name) DO NOTHING RETURNING value`, name, fresh, sqlrow.Millis(s.now()))
	if errors.Is(err, sql.ErrNoRows) { // another server stored one first
		err = s.db.GetContext(ctx, &value, `SELECT value FROM instance_secrets WHERE name = $1`, name)
		return value, false, err
	}
	if err != nil {
		return "", false, fmt.Errorf("store secret %s: %w", name, err)
	}
	return value, true, nil
}
