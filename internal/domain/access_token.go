package domain

import (
	"strings"
	"time"

	"github.com/google/uuid"
)

// TokenScope is what a personal access token may do.
type TokenScope string

// The scopes, each including the one before: read calls only GET and HEAD, write every route but
// the admin ones, admin everything its user may do (an admin's routes only for an admin).
const (
	ScopeRead  TokenScope = "read"
	ScopeWrite TokenScope = "write"
	ScopeAdmin TokenScope = "admin"
)

// ParseTokenScope checks a scope's name.
func ParseTokenScope(s string) (TokenScope, error) {
	switch sc := TokenScope(strings.ToLower(strings.TrimSpace(s))); sc {
	case ScopeRead, ScopeWrite, ScopeAdmin:
		return sc, nil
	}
	return "", Invalid("Scope must be read, write or admin")
}

// Allows reports whether a token of scope s may do what need asks.
func (s TokenScope) Allows(need TokenScope) bool {
	rank := map[TokenScope]int{ScopeRead: 1, ScopeWrite: 2, ScopeAdmin: 3}
	return rank[s] >= rank[need] && rank[need] > 0
}

// AccessToken is a personal access token as stored: only the hash of its secret.
type AccessToken struct {
	ID        uuid.UUID
	UserID    uuid.UUID
	Name      string
	Scope     TokenScope
	Hash      string
	CreatedAt time.Time
	// ExpiresAt is nil for a token that never expires.
	ExpiresAt  *time.Time
	LastUsedAt *time.Time
}

// Expired reports whether the token has expired at now.
func (t AccessToken) Expired(now time.Time) bool {
	return t.ExpiresAt != nil && !now.Before(*t.ExpiresAt)
}

// TwoFactor is a user's TOTP enrolment.
type TwoFactor struct {
	// Secret is the base32 TOTP secret.
	Secret string
	// Enabled is false while the enrolment waits for its first code.
	Enabled bool
	// LastStep is the latest 30 s time step a code was accepted for: no code of that step or an
	// earlier one is accepted again.
	LastStep int64
	// RecoveryLeft is how many recovery codes are still unused.
	RecoveryLeft int
	// Pending is true while an enrolment waits for its first code (not stored: the status read
	// sets it).
	Pending bool
}
