package sqlite

import (
	"context"
	"database/sql"
	"errors"
)

// counted names one of the review counts that triggers on reviews keep exact in every write
// transaction (migration 0200): scope "all" or "local" with no key, "user" or "user_local" with
// the user's id (a movie's are in movie_review_stats). A paged read takes its total from here instead of
// counting its scope, so a page costs the same over a thousand reviews and over a million.
type counted struct{ scope, key string }

// reviewCount reads a maintained count; a scope with no row (a user with no review) is 0.
func (s *Store) reviewCount(ctx context.Context, c counted) (int, error) {
	var n int
	err := s.read.GetContext(ctx, &n, `SELECT n FROM review_counts WHERE scope = ? AND key = ?`, c.scope, c.key)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return n, err
}
