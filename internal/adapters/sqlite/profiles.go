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

// UserTrends aggregates a user's reviews by month, director, genre, rating and watch medium.
func (s *Store) UserTrends(ctx context.Context, id uuid.UUID, limit int) (user.Trends, error) {
	var tr user.Trends
	uid := id.String()
	rows, err := s.read.QueryContext(ctx, `SELECT substr(watched_at, 1, 7), avg(rating), count(*) FROM reviews
		WHERE user_id = ? GROUP BY 1 ORDER BY 1`, uid)
	if err != nil {
		return tr, fmt.Errorf("user trends: %w", err)
	}
	tr.Monthly, err = scanAll(rows, func(rows *sql.Rows) (user.MonthRating, error) {
		var m user.MonthRating
		return m, rows.Scan(&m.YearMonth, &m.AvgRating, &m.Count)
	})
	if err != nil {
		return tr, fmt.Errorf("user trends: %w", err)
	}
	counts := []struct {
		dst   *[]user.Count
		query string
		args  []any
	}{
		{&tr.TopDirectors, `SELECT m.director, count(*) FROM reviews r JOIN movies m ON m.id = r.movie_id
			WHERE r.user_id = ? AND m.director IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT CAST(? AS INTEGER)`, []any{uid, limit}},
		{&tr.TopGenres, `SELECT g.value, count(*) FROM reviews r JOIN movies m ON m.id = r.movie_id, json_each(m.genres) g
			WHERE r.user_id = ? GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT CAST(? AS INTEGER)`, []any{uid, limit}},
		{&tr.Media, `SELECT watch_medium, count(*) FROM reviews WHERE user_id = ? AND watch_medium IS NOT NULL
			GROUP BY 1 ORDER BY 2 DESC, 1`, []any{uid}},
	}
	for _, c := range counts {
		rows, err := s.read.QueryContext(ctx, c.query, c.args...)
		if err != nil {
			return tr, fmt.Errorf("user trends: %w", err)
		}
		if *c.dst, err = scanAll(rows, func(rows *sql.Rows) (user.Count, error) {
			var n user.Count
			return n, rows.Scan(&n.Name, &n.Count)
		}); err != nil {
			return tr, fmt.Errorf("user trends: %w", err)
		}
	}
	d := &tr.RatingDistribution
	err = s.read.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE rating = 1), count(*) FILTER (WHERE rating = 2),
		count(*) FILTER (WHERE rating = 3), count(*) FILTER (WHERE rating = 4), count(*) FILTER (WHERE rating = 5)
		FROM reviews WHERE user_id = ?`, uid).Scan(&d[0], &d[1], &d[2], &d[3], &d[4])
	if err != nil {
		return tr, fmt.Errorf("user trends: %w", err)
	}
	return tr, nil
}
