package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/google/uuid"

	"moviesdiary/internal/usecase/user"
)

// UserStats summarises a user's reviews and follows.
func (s *Store) UserStats(ctx context.Context, id uuid.UUID) (user.Stats, error) {
	var (
		st       user.Stats
		avg      sql.Null[float64]
		director sql.Null[string]
		month    sql.Null[string]
	)
	err := s.read.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM reviews WHERE user_id = ?1),
		(SELECT avg(rating) FROM reviews WHERE user_id = ?1),
		(SELECT m.director FROM reviews r JOIN movies m ON m.id = r.movie_id
			WHERE r.user_id = ?1 AND m.director IS NOT NULL GROUP BY m.director ORDER BY count(*) DESC, m.director LIMIT 1),
		(SELECT substr(watched_at, 1, 7) FROM reviews WHERE user_id = ?1
			GROUP BY substr(watched_at, 1, 7) ORDER BY count(*) DESC, 1 DESC LIMIT 1),
		(SELECT count(*) FROM follows WHERE follower_kind = 'local' AND follower_id = ?1 AND status = 'accepted'),
		(SELECT count(*) FROM follows WHERE target_kind = 'local' AND target_id = ?1 AND status = 'accepted')`,
		id.String()).Scan(&st.TotalMovies, &avg, &director, &month, &st.FollowingCount, &st.FollowersCount)
	if err != nil {
		return st, fmt.Errorf("user stats: %w", err)
	}
	st.AvgRating, st.FavoriteDirector, st.MostActiveMonth = ptr(avg), ptr(director), ptr(month)
	return st, nil
}
