package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/user"
)

// UserStats summarises a user's reviews and follows.
func (s *Store) UserStats(ctx context.Context, id uuid.UUID) (user.Stats, error) {
	var row sqlrow.UserStats
	err := s.read.GetContext(ctx, &row, `SELECT
		CAST(COALESCE((SELECT sum(n) FROM review_counts WHERE scope = 'user' AND key = ?), 0) AS BIGINT) AS total_movies,
		(SELECT avg(rating) FROM reviews WHERE user_id = ?) AS avg_rating,
		(SELECT m.director FROM reviews r JOIN movies m ON m.id = r.movie_id
			WHERE r.user_id = ? AND m.director IS NOT NULL GROUP BY m.director ORDER BY count(*) DESC, m.director LIMIT 1)
			AS favorite_director,
		(SELECT substr(watched_at, 1, 7) FROM reviews WHERE user_id = ?
			GROUP BY substr(watched_at, 1, 7) ORDER BY count(*) DESC, 1 DESC LIMIT 1) AS most_active_month,
		(SELECT count(*) FROM follows WHERE follower_kind = 'local' AND follower_id = ? AND status = 'accepted')
			AS following_count,
		(SELECT count(*) FROM follows WHERE target_kind = 'local' AND target_id = ? AND status = 'accepted')
			AS followers_count`, id.String(), id.String(), id.String(), id.String(), id.String(), id.String())
	if err != nil {
		return user.Stats{}, fmt.Errorf("user stats: %w", err)
	}
	return user.Stats{TotalMovies: row.TotalMovies, AvgRating: sqlrow.Ptr(row.AvgRating), FavoriteDirector: sqlrow.Ptr(row.FavoriteDirector),
		MostActiveMonth: sqlrow.Ptr(row.MostActiveMonth), FollowingCount: row.FollowingCount, FollowersCount: row.FollowersCount}, nil
}

// UserTrends aggregates a user's reviews by month, director, genre, rating and watch medium.
func (s *Store) UserTrends(ctx context.Context, id uuid.UUID, limit int) (user.Trends, error) {
	var tr user.Trends
	uid := id.String()
	var months []sqlrow.Month
	if err := s.read.SelectContext(ctx, &months, `SELECT substr(watched_at, 1, 7) AS year_month, CAST(avg(rating) AS DOUBLE PRECISION) AS avg_rating,
		count(*) AS count FROM reviews WHERE user_id = ? GROUP BY 1 ORDER BY 1`, uid); err != nil {
		return tr, fmt.Errorf("user trends: %w", err)
	}
	tr.Monthly = sqlrow.CastRows(months, sqlrow.Month.Month)
	counts := []struct {
		dst   *[]user.Count
		query string
		args  []any
	}{
		{&tr.TopDirectors, `SELECT m.director AS name, count(*) AS count FROM reviews r JOIN movies m ON m.id = r.movie_id
			WHERE r.user_id = ? AND m.director IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT CAST(? AS INTEGER)`, []any{uid, limit}},
		{&tr.TopGenres, `SELECT g.value AS name, count(*) AS count FROM reviews r JOIN movies m ON m.id = r.movie_id, ` + s.d.JSONElements("m.genres", "g") + `
			WHERE r.user_id = ? GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT CAST(? AS INTEGER)`, []any{uid, limit}},
		{&tr.Media, `SELECT watch_medium AS name, count(*) AS count FROM reviews WHERE user_id = ? AND watch_medium IS NOT NULL
			GROUP BY 1 ORDER BY 2 DESC, 1`, []any{uid}},
	}
	for _, c := range counts {
		var rows []sqlrow.NameCount
		if err := s.read.SelectContext(ctx, &rows, c.query, c.args...); err != nil {
			return tr, fmt.Errorf("user trends: %w", err)
		}
		*c.dst = sqlrow.CastRows(rows, sqlrow.NameCount.UserCount)
	}
	var ratings sqlrow.Ratings
	if err := s.read.GetContext(ctx, &ratings, `SELECT `+sqlrow.RatingsColumns+` FROM reviews WHERE user_id = ?`, uid); err != nil {
		return tr, fmt.Errorf("user trends: %w", err)
	}
	tr.RatingDistribution = ratings.Histogram()
	return tr, nil
}

// UpdateProfile changes a user's profile in one transaction: update gets the stored profile,
// (locked FOR UPDATE where writers run concurrently), changes it in place and returns the events
// the change causes, which commit with it. The read, the write and the events share the
// transaction, so two concurrent updates on any hosts cannot both decide from the same old alias. An unknown user is KindNotFound.
func (s *Store) UpdateProfile(ctx context.Context, id uuid.UUID, update func(p *domain.Profile) ([]domain.Event, error)) error {
	err := s.write(ctx, func(tx *Tx) error {
		var row sqlrow.Profile
		if err := tx.GetContext(ctx, &row, `SELECT `+sqlrow.ProfileColumns+` FROM users WHERE id = ?`+s.forUpdate(), id.String()); err != nil {
			return sqlrow.NotFound(err, "Entity not found: user")
		}
		p := row.Profile()
		events, err := update(&p)
		if err != nil {
			return err
		}
		fields := make([]sqlrow.ProfileFieldJSON, 0, len(p.Fields))
		for _, f := range p.Fields {
			fields = append(fields, sqlrow.ProfileFieldJSON(f))
		}
		raw, err := json.Marshal(fields)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE users SET display_name = NULLIF(?, ''), bio = NULLIF(?, ''),
			avatar_key = NULLIF(?, ''), banner_key = NULLIF(?, ''), also_known_as = NULLIF(?, ''), profile_fields = ?
			WHERE id = ?`, p.DisplayName, p.Bio, p.AvatarKey, p.BannerKey, p.AlsoKnownAs, string(raw), id.String())
		if err != nil {
			return err
		}
		return s.enqueue(ctx, tx, events...)
	})
	if err != nil {
		return fmt.Errorf("update profile: %w", err)
	}
	return nil
}

// swapUserImageKey points every avatar and banner that is the image old at new, and returns the
// users it changed.
func swapUserImageKey(ctx context.Context, tx *Tx, old, new string) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	for _, col := range []string{"avatar_key", "banner_key"} {
		var changed []uuid.UUID
		if err := tx.SelectContext(ctx, &changed, `UPDATE users SET `+col+` = ? WHERE `+col+` = ? RETURNING id`, new, old); err != nil {
			return nil, err
		}
		for _, id := range changed {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return ids, nil
}
