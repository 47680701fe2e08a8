package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/user"
)

// userStatsRow is user.Stats as UserStats selects it.
type userStatsRow struct {
	TotalMovies      int               `db:"total_movies"`
	AvgRating        sql.Null[float64] `db:"avg_rating"`
	FavoriteDirector sql.Null[string]  `db:"favorite_director"`
	MostActiveMonth  sql.Null[string]  `db:"most_active_month"`
	FollowingCount   int               `db:"following_count"`
	FollowersCount   int               `db:"followers_count"`
}

// UserStats summarises a user's reviews and follows.
func (s *Store) UserStats(ctx context.Context, id uuid.UUID) (user.Stats, error) {
	var row userStatsRow
	err := s.db.GetContext(ctx, &row, `SELECT
		COALESCE((SELECT n FROM review_counts WHERE scope = 'user' AND key = $1), 0) AS total_movies,
		(SELECT avg(rating)::float8 FROM reviews WHERE user_id = $1) AS avg_rating,
		(SELECT m.director FROM reviews r JOIN movies m ON m.id = r.movie_id
			WHERE r.user_id = $1 AND m.director IS NOT NULL GROUP BY m.director ORDER BY count(*) DESC, m.director LIMIT 1)
			AS favorite_director,
		(SELECT substr(watched_at, 1, 7) FROM reviews WHERE user_id = $1
			GROUP BY substr(watched_at, 1, 7) ORDER BY count(*) DESC, 1 DESC LIMIT 1) AS most_active_month,
		(SELECT count(*) FROM follows WHERE follower_kind = 'local' AND follower_id = $1 AND status = 'accepted')
			AS following_count,
		(SELECT count(*) FROM follows WHERE target_kind = 'local' AND target_id = $1 AND status = 'accepted')
			AS followers_count`, id.String())
	if err != nil {
		return user.Stats{}, fmt.Errorf("user stats: %w", err)
	}
	return user.Stats{TotalMovies: row.TotalMovies, AvgRating: sqlrow.Ptr(row.AvgRating), FavoriteDirector: sqlrow.Ptr(row.FavoriteDirector),
		MostActiveMonth: sqlrow.Ptr(row.MostActiveMonth), FollowingCount: row.FollowingCount, FollowersCount: row.FollowersCount}, nil
}

// monthRow is one month of a user's viewings.
type monthRow struct {
	YearMonth string  `db:"year_month"`
	AvgRating float64 `db:"avg_rating"`
	Count     int     `db:"count"`
}

func (r monthRow) month() user.MonthRating { return user.MonthRating(r) }

// countRow is how often a name occurs.
type countRow struct {
	Name  string `db:"name"`
	Count int    `db:"count"`
}

func (r countRow) count() user.Count { return user.Count(r) }

// ratingsRow is a histogram of ratings 1 to 5.
type ratingsRow struct {
	R1 int `db:"r1"`
	R2 int `db:"r2"`
	R3 int `db:"r3"`
	R4 int `db:"r4"`
	R5 int `db:"r5"`
}

// ratingsColumns select a ratingsRow over reviews.
const ratingsColumns = `count(*) FILTER (WHERE rating = 1) AS r1, count(*) FILTER (WHERE rating = 2) AS r2,
	count(*) FILTER (WHERE rating = 3) AS r3, count(*) FILTER (WHERE rating = 4) AS r4,
	count(*) FILTER (WHERE rating = 5) AS r5`

func (r ratingsRow) histogram() [5]int { return [5]int{r.R1, r.R2, r.R3, r.R4, r.R5} }

// UserTrends aggregates a user's reviews by month, director, genre, rating and watch medium.
// genres is a JSON array in text, as on SQLite; jsonb_array_elements_text stands for json_each.
func (s *Store) UserTrends(ctx context.Context, id uuid.UUID, limit int) (user.Trends, error) {
	var tr user.Trends
	uid := id.String()
	var months []monthRow
	if err := s.db.SelectContext(ctx, &months, `SELECT substr(watched_at, 1, 7) AS year_month, avg(rating)::float8 AS avg_rating,
		count(*) AS count FROM reviews WHERE user_id = $1 GROUP BY 1 ORDER BY 1`, uid); err != nil {
		return tr, fmt.Errorf("user trends: %w", err)
	}
	tr.Monthly = sqlrow.CastRows(months, monthRow.month)
	counts := []struct {
		dst   *[]user.Count
		query string
		args  []any
	}{
		{&tr.TopDirectors, `SELECT m.director AS name, count(*) AS count FROM reviews r JOIN movies m ON m.id = r.movie_id
			WHERE r.user_id = $1 AND m.director IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT $2`, []any{uid, limit}},
		{&tr.TopGenres, `SELECT g.value AS name, count(*) AS count FROM reviews r JOIN movies m ON m.id = r.movie_id,
			jsonb_array_elements_text(m.genres::jsonb) AS g (value)
			WHERE r.user_id = $1 GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT $2`, []any{uid, limit}},
		{&tr.Media, `SELECT watch_medium AS name, count(*) AS count FROM reviews WHERE user_id = $1 AND watch_medium IS NOT NULL
			GROUP BY 1 ORDER BY 2 DESC, 1`, []any{uid}},
	}
	for _, c := range counts {
		var rows []countRow
		if err := s.db.SelectContext(ctx, &rows, c.query, c.args...); err != nil {
			return tr, fmt.Errorf("user trends: %w", err)
		}
		*c.dst = sqlrow.CastRows(rows, countRow.count)
	}
	var ratings ratingsRow
	if err := s.db.GetContext(ctx, &ratings, `SELECT `+ratingsColumns+` FROM reviews WHERE user_id = $1`, uid); err != nil {
		return tr, fmt.Errorf("user trends: %w", err)
	}
	tr.RatingDistribution = ratings.histogram()
	return tr, nil
}

// profileColumns are the columns of profileRow, selected from users.
const profileColumns = `COALESCE(display_name, '') AS display_name, COALESCE(bio, '') AS bio,
	COALESCE(avatar_key, '') AS avatar_key, COALESCE(banner_key, '') AS banner_key,
	COALESCE(also_known_as, '') AS also_known_as, profile_fields`

// profileRow is the profile part of a users row, with "" for NULL.
type profileRow struct {
	DisplayName string `db:"display_name"`
	Bio         string `db:"bio"`
	AvatarKey   string `db:"avatar_key"`
	BannerKey   string `db:"banner_key"`
	AlsoKnownAs string `db:"also_known_as"`
	Fields      string `db:"profile_fields"` // JSON [{"name", "value"}]
}

// profileFieldJSON is one element of users.profile_fields.
type profileFieldJSON struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

func (r profileRow) profile() domain.Profile {
	p := domain.Profile{DisplayName: r.DisplayName, Bio: r.Bio, AvatarKey: r.AvatarKey, BannerKey: r.BannerKey,
		AlsoKnownAs: r.AlsoKnownAs}
	var fields []profileFieldJSON
	_ = json.Unmarshal([]byte(r.Fields), &fields) // the column is always written by UpdateProfile
	for _, f := range fields {
		p.Fields = append(p.Fields, domain.ProfileField(f))
	}
	return p
}

// UpdateProfile changes a user's profile in one transaction: update gets the stored profile
// (locked FOR UPDATE, so two concurrent updates on any hosts cannot both decide from the same
// old alias), changes it in place and returns the events the change causes, which commit with
// it. An unknown user is KindNotFound.
func (s *Store) UpdateProfile(ctx context.Context, id uuid.UUID, update func(p *domain.Profile) ([]domain.Event, error)) error {
	err := s.write(ctx, func(tx *sqlx.Tx) error {
		var row profileRow
		if err := tx.GetContext(ctx, &row, `SELECT `+profileColumns+` FROM users WHERE id = $1 FOR UPDATE`, id.String()); err != nil {
			return sqlrow.NotFound(err, "Entity not found: user")
		}
		p := row.profile()
		events, err := update(&p)
		if err != nil {
			return err
		}
		fields := make([]profileFieldJSON, 0, len(p.Fields))
		for _, f := range p.Fields {
			fields = append(fields, profileFieldJSON(f))
		}
		raw, err := json.Marshal(fields)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE users SET display_name = NULLIF($1, ''), bio = NULLIF($2, ''),
			avatar_key = NULLIF($3, ''), banner_key = NULLIF($4, ''), also_known_as = NULLIF($5, ''), profile_fields = $6
			WHERE id = $7`, p.DisplayName, p.Bio, p.AvatarKey, p.BannerKey, p.AlsoKnownAs, string(raw), id.String())
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
func swapUserImageKey(ctx context.Context, tx *sqlx.Tx, old, new string) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	for _, col := range []string{"avatar_key", "banner_key"} {
		var changed []uuid.UUID
		if err := tx.SelectContext(ctx, &changed, `UPDATE users SET `+col+` = $1 WHERE `+col+` = $2 RETURNING id`, new, old); err != nil {
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
