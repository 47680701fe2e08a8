package sqlrow

import (
	"database/sql"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/user"
)

// UserColumns are the columns of User.
const UserColumns = `id, username, email, password_hash, is_admin, approved, email_confirmed, created_at, ` + ProfileColumns

// User is a users row.
type User struct {
	ID           uuid.UUID `db:"id"`
	Username     string    `db:"username"`
	Email        string    `db:"email"`
	PasswordHash string    `db:"password_hash"`
	IsAdmin      bool      `db:"is_admin"`
	Approved     bool      `db:"approved"`
	// EmailConfirmed is false while a new account's address waits for its link (mail configured).
	EmailConfirmed bool   `db:"email_confirmed"`
	CreatedAt      string `db:"created_at"`
	Profile
}

// User maps the row to its domain value.
func (r User) User() domain.User {
	u := domain.User{ID: r.ID, Username: r.Username, Email: r.Email, PasswordHash: r.PasswordHash, Role: domain.RoleStandard,
		Pending: !r.Approved, EmailUnconfirmed: !r.EmailConfirmed, Profile: r.Profile.Profile()}
	if r.IsAdmin {
		u.Role = domain.RoleAdmin
	}
	u.CreatedAt, _ = ParseTime(r.CreatedAt)
	return u
}

// UserSummary is one row of UserSummaries.
type UserSummary struct {
	User
	TotalMovies    int               `db:"total_movies"`
	AvgRating      sql.Null[float64] `db:"avg_rating"`
	FollowingCount int               `db:"following_count"`
	FollowersCount int               `db:"followers_count"`
}

// Summary maps the row to its domain value.
func (r UserSummary) Summary() user.Summary {
	return user.Summary{User: r.User.User(), TotalMovies: r.TotalMovies, AvgRating: Ptr(r.AvgRating),
		FollowingCount: r.FollowingCount, FollowersCount: r.FollowersCount}
}

// ErrExpired and ErrReused answer a refresh token that is past its time, or already rotated.
var (
	ErrExpired = domain.Errorf(domain.KindUnauthorized, "Refresh token expired")
	ErrReused  = domain.Errorf(domain.KindUnauthorized,
		"Refresh token already used: every session of this login is revoked, log in again")
)
