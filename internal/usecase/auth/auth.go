// Package auth is the account use cases: registration, login, and the rotating refresh sessions
// that keep a client logged in.
package auth

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// RefreshTTLDefault is how long a refresh token lives (30 days).
const RefreshTTLDefault = 30 * 24 * time.Hour

// Accounts is the storage the account use cases need.
type Accounts interface {
	// CreateUser stores a new user; the first user of the instance gets RoleAdmin. A taken e-mail
	// or username is a KindInvalid error.
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	// UserByEmail returns the user with that e-mail (case-insensitive), or a KindNotFound error.
	UserByEmail(ctx context.Context, email string) (domain.User, error)
	// UserByID returns the user, or a KindNotFound error.
	UserByID(ctx context.Context, id uuid.UUID) (domain.User, error)
	// CreateSession stores a login's first refresh token hash; it starts a token family.
	CreateSession(ctx context.Context, userID uuid.UUID, tokenHash string, now, expires time.Time) error
	// RotateSession spends the session oldHash and stores newHash in its family atomically, and
	// returns its user; an unknown hash is KindNotFound, an expired one is deleted and
	// KindUnauthorized, and a spent one (a replayed token) revokes its whole family and is
	// KindUnauthorized.
	RotateSession(ctx context.Context, oldHash, newHash string, now, expires time.Time) (uuid.UUID, error)
	// DeleteSession ends the token family of a session if it exists.
	DeleteSession(ctx context.Context, tokenHash string) error
}

// Tokens issues the short-lived access tokens clients send as "Authorization: Bearer".
type Tokens interface {
	Issue(userID uuid.UUID, now time.Time) (token string, expires time.Time, err error)
}

// Config is the service's settings; zero fields take defaults.
type Config struct {
	// AllowRegistration lets anyone register (ALLOW_REGISTRATION).
	AllowRegistration bool
	// RefreshTTL is a refresh token's life; default RefreshTTLDefault.
	RefreshTTL time.Duration
	// Hasher hashes passwords; default DefaultHasher (argon2id).
	Hasher Hasher
	// Now is the clock; default time.Now.
	Now func() time.Time
	// HashConcurrency is how many password hashes run at once; default
	// DefaultHashConcurrency(Hasher).
	HashConcurrency int
	// HashWait is how long a login or registration waits for a hashing slot before it is
	// refused as unavailable; default HashWaitDefault.
	HashWait time.Duration
}

// Service runs the account use cases.
type Service struct {
	accounts Accounts
	tokens   Tokens
	cfg      Config
	throttle *loginThrottle
	gate     *hashGate
}

// New builds the service.
func New(accounts Accounts, tokens Tokens, cfg Config) *Service {
	cfg.RefreshTTL = cmp.Or(cfg.RefreshTTL, RefreshTTLDefault)
	if cfg.Hasher == (Hasher{}) {
		cfg.Hasher = DefaultHasher
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	// The dummy hash is made now, in the background, so that the first login naming no user
	// does not take a hash longer than the others (binaries without a Service never make it).
	go dummyHash()
	cfg.HashConcurrency = cmp.Or(cfg.HashConcurrency, DefaultHashConcurrency(cfg.Hasher))
	cfg.HashWait = cmp.Or(cfg.HashWait, HashWaitDefault)
	return &Service{accounts: accounts, tokens: tokens, cfg: cfg, throttle: newLoginThrottle(cfg.Now),
		gate: newHashGate(cfg.HashConcurrency, cfg.HashWait)}
}

// Session is what a login or refresh hands the client.
type Session struct {
	Token        string
	RefreshToken string
	ExpiresAt    time.Time // ExpiresAt is the access token's expiry.
	User         domain.User
}

// Register creates an account. Registration does not log in.
func (s *Service) Register(ctx context.Context, email, username, password string) (domain.User, error) {
	if !s.cfg.AllowRegistration {
		return domain.User{}, domain.Errorf(domain.KindUnauthorized, "Registration is disabled")
	}
	email, err := domain.NormalizeEmail(email)
	if err != nil {
		return domain.User{}, err
	}
	if username, err = domain.NormalizeUsername(username); err != nil {
		return domain.User{}, err
	}
	if err := domain.ValidatePassword(password); err != nil {
		return domain.User{}, err
	}
	var hash string
	if gerr := s.gate.do(ctx, func() { hash, err = s.cfg.Hasher.Hash(password) }); gerr != nil {
		return domain.User{}, gerr
	}
	if err != nil {
		return domain.User{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return domain.User{}, fmt.Errorf("user id: %w", err)
	}
	return s.accounts.CreateUser(ctx, domain.User{
		ID: id, Username: username, Email: email, PasswordHash: hash, Role: domain.RoleStandard,
		CreatedAt: s.cfg.Now().UTC(),
	})
}

// errBadCredentials is the one answer to every failed login, so it reveals nothing.
var errBadCredentials = domain.Errorf(domain.KindUnauthorized, "Invalid credentials")

// Login checks a password and opens a session. Attempts on one account beyond
// LoginFreeAttempts wait an exponential back-off (a *ThrottledError until it ends), whichever
// address they come from; a successful login resets it.
func (s *Service) Login(ctx context.Context, email, password string) (Session, error) {
	if err := s.throttle.begin(email); err != nil {
		return Session{}, err
	}
	u, err := s.accounts.UserByEmail(ctx, email)
	if errors.Is(err, domain.ErrNotFound) {
		// Spend the same time as a real check, so timing does not tell which e-mails exist.
		if gerr := s.gate.do(ctx, func() { _ = s.cfg.Hasher.Verify(password, dummyHash()) }); gerr != nil {
			return Session{}, gerr
		}
		return Session{}, errBadCredentials
	}
	if err != nil {
		return Session{}, err
	}
	var ok bool
	if gerr := s.gate.do(ctx, func() { ok = s.cfg.Hasher.Verify(password, u.PasswordHash) }); gerr != nil {
		return Session{}, gerr
	}
	if !ok {
		return Session{}, errBadCredentials
	}
	s.throttle.succeeded(email)
	now := s.cfg.Now()
	refresh, hash, err := newRefreshToken()
	if err != nil {
		return Session{}, err
	}
	if err := s.accounts.CreateSession(ctx, u.ID, hash, now, now.Add(s.cfg.RefreshTTL)); err != nil {
		return Session{}, err
	}
	return s.session(u, refresh, now)
}

// Refresh rotates a refresh token: the old one stops working and a new one is returned with a
// fresh access token. Presenting an old one again revokes every token of its login, since one
// of its two holders is not its owner.
func (s *Service) Refresh(ctx context.Context, refreshToken string) (Session, error) {
	now := s.cfg.Now()
	refresh, hash, err := newRefreshToken()
	if err != nil {
		return Session{}, err
	}
	userID, err := s.accounts.RotateSession(ctx, HashToken(refreshToken), hash, now, now.Add(s.cfg.RefreshTTL))
	if errors.Is(err, domain.ErrNotFound) {
		return Session{}, domain.Errorf(domain.KindUnauthorized, "Invalid refresh token")
	}
	if err != nil {
		return Session{}, err
	}
	u, err := s.accounts.UserByID(ctx, userID)
	if err != nil {
		return Session{}, err
	}
	return s.session(u, refresh, now)
}

// Logout ends a refresh session and every token rotated from the same login; an unknown token
// is not an error.
func (s *Service) Logout(ctx context.Context, refreshToken string) error {
	return s.accounts.DeleteSession(ctx, HashToken(refreshToken))
}

func (s *Service) session(u domain.User, refresh string, now time.Time) (Session, error) {
	token, exp, err := s.tokens.Issue(u.ID, now)
	if err != nil {
		return Session{}, err
	}
	return Session{Token: token, RefreshToken: refresh, ExpiresAt: exp, User: u}, nil
}

// newRefreshToken returns an opaque random token and the hash stored for it.
func newRefreshToken() (token, hash string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", fmt.Errorf("refresh token: %w", err)
	}
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, HashToken(token), nil
}

// HashToken is the stored form of a refresh token: SHA-256, hex. The token is 256 random bits,
// so a fast hash is enough; a slow one would only slow refreshes down.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
