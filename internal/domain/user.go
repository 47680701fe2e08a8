package domain

import (
	"net/mail"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Role is what a user may do beyond their own data.
type Role string

// The roles: the first registered user is the admin.
const (
	RoleStandard Role = "standard"
	RoleAdmin    Role = "admin"
)

// MinPasswordLength is the shortest password accepted at registration.
const MinPasswordLength = 8

// User is a local account.
type User struct {
	ID           uuid.UUID
	Username     string
	Email        string
	PasswordHash string
	Role         Role
	CreatedAt    time.Time
	// Profile is what the user shows of themselves (display name, bio, images, fields).
	Profile Profile
}

var usernamePattern = regexp.MustCompile(`^[a-z0-9_-]{2,30}$`)

// NormalizeUsername trims and lowercases a username and checks it is 2–30 of [a-z0-9_-].
func NormalizeUsername(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if !usernamePattern.MatchString(s) {
		return "", Invalid("Username must be 2-30 characters of a-z, 0-9, _ or -")
	}
	return s, nil
}

// NormalizeEmail trims an e-mail address and checks its form.
func NormalizeEmail(s string) (string, error) {
	s = strings.TrimSpace(s)
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || !strings.Contains(s[strings.LastIndexByte(s, '@')+1:], ".") {
		return "", Invalid("Invalid email format")
	}
	return s, nil
}

// ValidatePassword checks a new password's length.
func ValidatePassword(s string) error {
	if len([]rune(s)) < MinPasswordLength {
		return Invalid("Password must be at least %d characters", MinPasswordLength)
	}
	return nil
}

// FederationSettings are a user's choices of what federates to their followers.
type FederationSettings struct {
	Reviews   bool
	Watchlist bool
	Goals     bool
}

// DefaultFederationSettings are a new user's settings: everything federates.
var DefaultFederationSettings = FederationSettings{Reviews: true, Watchlist: true, Goals: true}
