package sqlrow

import (
	"database/sql"
	"encoding/json"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/user"
)

// NameCount is how often a name occurs.
type NameCount struct {
	Name  string `db:"name"`
	Count int    `db:"count"`
}

// UserCount maps the row to its domain value.
func (r NameCount) UserCount() user.Count { return user.Count(r) }

// Month is one month of a user's viewings.
type Month struct {
	YearMonth string  `db:"year_month"`
	AvgRating float64 `db:"avg_rating"`
	Count     int     `db:"count"`
}

// Month maps the row to its domain value.
func (r Month) Month() user.MonthRating { return user.MonthRating(r) }

// ProfileColumns are the columns of Profile, selected from users.
const ProfileColumns = `COALESCE(display_name, '') AS display_name, COALESCE(bio, '') AS bio,
	COALESCE(avatar_key, '') AS avatar_key, COALESCE(banner_key, '') AS banner_key,
	COALESCE(also_known_as, '') AS also_known_as, profile_fields`

// ProfileFieldJSON is one element of users.profile_fields.
type ProfileFieldJSON struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Profile is the profile part of a users row, with "" for NULL.
type Profile struct {
	DisplayName string `db:"display_name"`
	Bio         string `db:"bio"`
	AvatarKey   string `db:"avatar_key"`
	BannerKey   string `db:"banner_key"`
	AlsoKnownAs string `db:"also_known_as"`
	Fields      string `db:"profile_fields"` // JSON [{"name", "value"}]
}

// Profile maps the row to its domain value.
func (r Profile) Profile() domain.Profile {
	p := domain.Profile{DisplayName: r.DisplayName, Bio: r.Bio, AvatarKey: r.AvatarKey, BannerKey: r.BannerKey,
		AlsoKnownAs: r.AlsoKnownAs}
	var fields []ProfileFieldJSON
	_ = json.Unmarshal([]byte(r.Fields), &fields) // the column is always written by UpdateProfile
	for _, f := range fields {
		p.Fields = append(p.Fields, domain.ProfileField(f))
	}
	return p
}

// UserStats is user.Stats as UserStats selects it.
type UserStats struct {
	TotalMovies      int               `db:"total_movies"`
	AvgRating        sql.Null[float64] `db:"avg_rating"`
	FavoriteDirector sql.Null[string]  `db:"favorite_director"`
	MostActiveMonth  sql.Null[string]  `db:"most_active_month"`
	FollowingCount   int               `db:"following_count"`
	FollowersCount   int               `db:"followers_count"`
}
