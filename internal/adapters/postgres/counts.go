package postgres

import (
	"context"
)

// counted names one of the review counts that triggers on reviews (migration 0200) and on the
// following feed (0202) keep exact in every write transaction: scope "all" or "local" with no
// key, "user" or "user_local" with the user's id, "following" with the follower's id. A paged
// read takes its total from here instead of counting its scope, as on SQLite.
type counted struct{ scope, key string }

// reviewCount reads a maintained count: the sum of its slots (0206: the instance-wide counts are
// spread over 16 rows so writers do not queue on one); a scope with no row is 0.
func (s *Store) reviewCount(ctx context.Context, c counted) (int, error) {
	var n int
	err := s.db.GetContext(ctx, &n, `SELECT COALESCE(sum(n), 0) FROM review_counts WHERE scope = $1 AND key = $2`, c.scope, c.key)
	return n, err
}
