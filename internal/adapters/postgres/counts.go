package postgres

import (
	"context"
	"database/sql"
	"errors"
)

// counted names one of the review counts that triggers on reviews (migration 0200) and on the
// following feed (0202) keep exact in every write transaction: scope "all" or "local" with no
// key, "user" or "user_local" with the user's id, "following" with the follower's id. A paged
// read takes its total from here instead of counting its scope, as on SQLite.
type counted struct{ scope, key string }

// reviewCount reads a maintained count; a scope with no row (a user with no review) is 0.
func (s *Store) reviewCount(ctx context.Context, c counted) (int, error) {
	var n int
	err := s.db.GetContext(ctx, &n, `SELECT n FROM review_counts WHERE scope = $1 AND key = $2`, c.scope, c.key)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return n, err
}
