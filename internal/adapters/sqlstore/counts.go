package sqlstore

import "context"

// counted names one of the review counts that triggers on reviews keep exact in every write
// transaction (migration 0200): scope "all" or "local" with no key, "user" or "user_local" with
// the user's id (a movie's are in movie_review_stats). A paged read takes its total from here instead of
// counting its scope, so a page costs the same over a thousand reviews and over a million.
type counted struct{ scope, key string }

// reviewCount reads a maintained count: the sum of its rows (PostgreSQL spreads the counts over
// slots, one per concurrent writing transaction, so writers do not queue on one: 0206, 0410,
// 0420; SQLite keeps one row); a
// scope with no row (a user with no review) is 0.
func (s *Store) reviewCount(ctx context.Context, c counted) (int, error) {
	var n int
	err := s.read.GetContext(ctx, &n, `SELECT COALESCE(sum(n), 0) FROM review_counts WHERE scope = ? AND key = ?`, c.scope, c.key)
	return n, err
}
