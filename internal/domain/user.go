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

// The roles: the instance's first admin comes from the setup link or the CLI.
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
	// Pending is true while the account waits for an admin's approval: it cannot log in.
	Pending bool
	// EmailUnconfirmed is true while the address waits for its confirmation link: set at
	// registration when mail is configured, cleared when the link is followed.
	EmailUnconfirmed bool
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

// RegistrationMode is who may create an account (REGISTRATION_MODE).
type RegistrationMode string

// The registration modes. An invite link works in every mode, closed too; the one-time setup
// link of an instance without an admin works in every mode.
const (
	// RegistrationOpen lets anyone register.
	RegistrationOpen RegistrationMode = "open"
	// RegistrationApproval lets anyone register, but the account cannot log in until an admin
	// approves it.
	RegistrationApproval RegistrationMode = "approval"
	// RegistrationInvite lets only the holders of an invite link register.
	RegistrationInvite RegistrationMode = "invite"
	// RegistrationClosed lets nobody register (accounts are made with the CLI).
	RegistrationClosed RegistrationMode = "closed"
)

// ParseRegistrationMode checks a mode's name.
func ParseRegistrationMode(s string) (RegistrationMode, error) {
	switch m := RegistrationMode(strings.ToLower(strings.TrimSpace(s))); m {
	case RegistrationOpen, RegistrationApproval, RegistrationInvite, RegistrationClosed:
		return m, nil
	}
	return "", Invalid("registration mode %q: want open, approval, invite or closed", s)
}

// Invite is an invite link as stored: only the hash of its token. Admin invites (the one-time
// setup link of an instance without an admin) make the account an admin.
type Invite struct {
	TokenHash string
	// CreatedBy is the admin who made it; nil for the setup link.
	CreatedBy *uuid.UUID
	Admin     bool
	CreatedAt time.Time
	ExpiresAt time.Time
}

// LoginSession is one live log-in of a user: a refresh token family, as its owner sees it.
type LoginSession struct {
	// ID names the session (a hash of its family, never a token).
	ID        string
	StartedAt time.Time // StartedAt is the log-in.
	LastUsed  time.Time // LastUsed is the latest refresh (the log-in when none).
	ExpiresAt time.Time
}

// reservedUsernames are names no account may take: the instance actor's and the routes' own.
var reservedUsernames = map[string]bool{"instance.actor": true, "instance_actor": true, "instance-actor": true}

// ReservedUsername reports whether name belongs to the instance (its actor) and no account.
func ReservedUsername(name string) bool { return reservedUsernames[strings.ToLower(name)] }
