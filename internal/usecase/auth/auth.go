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
	"strings"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// RefreshTTLDefault is how long a refresh token lives (30 days).
const RefreshTTLDefault = 30 * 24 * time.Hour

// RegistrationDefault is the registration mode when none is set: anyone may ask, an admin
// approves.
const RegistrationDefault = domain.RegistrationApproval

// InviteTTLDefault is how long an invite link (and the setup link) works: 7 days.
const InviteTTLDefault = 7 * 24 * time.Hour

// Accounts is the storage the account use cases need.
type Accounts interface {
	// CreateUser stores a new user; a user without a role gets RoleAdmin when they are the
	// instance's first, else RoleStandard. A taken e-mail or a taken or reserved username is a
	// KindInvalid error.
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	// CreateInvitedUser is CreateUser spending the invite of inviteHash in the same
	// transaction: an unknown, used or expired one is KindForbidden, an admin one makes an admin.
	CreateInvitedUser(ctx context.Context, u domain.User, inviteHash string, now time.Time) (domain.User, error)
	// CreateInvite stores an invite link's hash.
	CreateInvite(ctx context.Context, inv domain.Invite) error
	// CountAdmins is the number of admins.
	CountAdmins(ctx context.Context) (int, error)
	// ApproveUser lets a pending account log in.
	ApproveUser(ctx context.Context, id uuid.UUID) error
	// The self-service changes (self.go).
	SelfService
	// The mailed links (mail.go).
	MailLinks
	// Personal access tokens (access_tokens.go) and two factors (two_factor.go).
	AccessTokenStore
	TwoFactorStore
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
	// Registration is who may register (REGISTRATION_MODE); default RegistrationDefault.
	Registration domain.RegistrationMode
	// FirstUserAdmin makes the first account registered the admin, as the original did. Off in
	// production: the first admin comes from the one-time setup link (SetupLink) or the CLI, so
	// a stranger who registers first on a public host owns nothing. Tests and benchmarks set it.
	FirstUserAdmin bool
	// Mail is true when the instance sends mail (SMTP_HOST set): password reset links, and
	// e-mail changes and new accounts' addresses confirmed by a link (mail.go).
	Mail bool
	// InviteTTL is how long an invite link works; default InviteTTLDefault.
	InviteTTL time.Duration
	// Forget, when set, is told of a deleted account, so the Authenticator stops trusting its
	// tokens at once (Authenticator.Forget).
	Forget func(uuid.UUID)
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
	// Challenges signs the challenge of a log-in's code step (two factors); nil refuses the
	// log-in of users with two factors.
	Challenges Challenger
	// RequireTwoFactor makes every user turn two factors on before anything else
	// (REQUIRE_TWO_FACTOR).
	RequireTwoFactor bool
	// Issuer names the instance in authenticator apps; default "moviesdiary".
	Issuer string
}

// Service runs the account use cases.
type Service struct {
	accounts Accounts
	tokens   Tokens
	cfg      Config
	throttle *loginThrottle
	gate     *hashGate
	// tokenFailures counts failed access-token lookups per client, apart from throttle.
	tokenFailures *failureLimiter
}

// New builds the service.
func New(accounts Accounts, tokens Tokens, cfg Config) *Service {
	cfg.RefreshTTL = cmp.Or(cfg.RefreshTTL, RefreshTTLDefault)
	cfg.Registration = cmp.Or(cfg.Registration, RegistrationDefault)
	cfg.InviteTTL = cmp.Or(cfg.InviteTTL, InviteTTLDefault)
	if cfg.Hasher == (Hasher{}) {
		cfg.Hasher = DefaultHasher
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.HashConcurrency = cmp.Or(cfg.HashConcurrency, DefaultHashConcurrency(cfg.Hasher))
	cfg.HashWait = cmp.Or(cfg.HashWait, HashWaitDefault)
	cfg.Issuer = cmp.Or(cfg.Issuer, "moviesdiary")
	return &Service{accounts: accounts, tokens: tokens, cfg: cfg, throttle: newLoginThrottle(cfg.Now),
		gate: newHashGate(cfg.HashConcurrency, cfg.HashWait), tokenFailures: newFailureLimiter(TokenFailuresPerMinute)}
}

// Session is what a login or refresh hands the client.
type Session struct {
	Token        string
	RefreshToken string
	ExpiresAt    time.Time // ExpiresAt is the access token's expiry.
	User         domain.User
}

// Registration is the mode registrations follow.
func (s *Service) Registration() domain.RegistrationMode { return s.cfg.Registration }

// Register creates an account. Registration does not log in. With an invite token (from an
// invite link an admin made, or the setup link) the account is made whatever the mode; without one, the mode decides: open makes the account, approval makes it pending (it
// cannot log in until an admin approves it), invite and closed refuse.
func (s *Service) Register(ctx context.Context, email, username, password, invite string) (domain.User, error) {
	u := domain.User{Role: domain.RoleStandard}
	switch {
	case invite != "":
	case s.cfg.Registration == domain.RegistrationOpen:
		if s.cfg.FirstUserAdmin {
			u.Role = "" // the store makes the first user the admin
		}
	case s.cfg.Registration == domain.RegistrationApproval:
		u.Pending = true
	case s.cfg.Registration == domain.RegistrationInvite:
		return domain.User{}, domain.Errorf(domain.KindUnauthorized, "Registration needs an invite link")
	default:
		return domain.User{}, domain.Errorf(domain.KindUnauthorized, "Registration is disabled")
	}
	email, err := domain.NormalizeEmail(email)
	if err != nil {
		return domain.User{}, err
	}
	if username, err = domain.NormalizeUsername(username); err != nil {
		return domain.User{}, err
	}
	if domain.ReservedUsername(username) {
		return domain.User{}, domain.Invalid("Username already taken")
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
	now := s.cfg.Now().UTC()
	u.ID, u.Username, u.Email, u.PasswordHash, u.CreatedAt = id, username, email, hash, now
	// With mail the address gets a confirmation link, in the transaction that creates the account.
	u.EmailUnconfirmed = s.cfg.Mail
	if invite != "" {
		return s.accounts.CreateInvitedUser(ctx, u, HashToken(invite), now)
	}
	return s.accounts.CreateUser(ctx, u)
}

// NewInvite makes an invite link's token, valid for the configured InviteTTL: admin's make
// admins (the setup link). by is the admin who asked, nil for the instance itself.
func (s *Service) NewInvite(ctx context.Context, by *uuid.UUID, admin bool) (token string, expires time.Time, err error) {
	token, hash, err := newRefreshToken()
	if err != nil {
		return "", time.Time{}, err
	}
	now := s.cfg.Now()
	expires = now.Add(s.cfg.InviteTTL)
	if err := s.accounts.CreateInvite(ctx, domain.Invite{TokenHash: hash, CreatedBy: by, Admin: admin,
		CreatedAt: now, ExpiresAt: expires}); err != nil {
		return "", time.Time{}, err
	}
	return token, expires, nil
}

// SetupLink is the one-time link that creates the instance's first admin, made when the instance
// has no admin: "" when it has one. Each call makes a new link (every server process prints its
// own at start); each works once, for InviteTTL.
func (s *Service) SetupLink(ctx context.Context, baseURL string) (string, error) {
	n, err := s.accounts.CountAdmins(ctx)
	if err != nil || n > 0 {
		return "", err
	}
	token, _, err := s.NewInvite(ctx, nil, true)
	if err != nil {
		return "", err
	}
	return InviteURL(baseURL, token), nil
}

// InviteURL is the registration page's address with an invite token.
func InviteURL(baseURL, token string) string {
	return strings.TrimRight(baseURL, "/") + "/register?invite=" + token
}

// requireAdmin fails unless caller is an admin.
func (s *Service) requireAdmin(ctx context.Context, caller uuid.UUID) error {
	u, err := s.accounts.UserByID(ctx, caller)
	if err != nil {
		return err
	}
	if u.Role != domain.RoleAdmin {
		return domain.Forbidden("Forbidden: admin access required")
	}
	return nil
}

// Approve lets a pending account log in, for an admin caller.
func (s *Service) Approve(ctx context.Context, caller, id uuid.UUID) error {
	if err := s.requireAdmin(ctx, caller); err != nil {
		return err
	}
	return s.accounts.ApproveUser(ctx, id)
}

// CreateInvite makes an invite link for an admin caller.
func (s *Service) CreateInvite(ctx context.Context, caller uuid.UUID, baseURL string) (string, time.Time, error) {
	if err := s.requireAdmin(ctx, caller); err != nil {
		return "", time.Time{}, err
	}
	token, exp, err := s.NewInvite(ctx, &caller, false)
	if err != nil {
		return "", time.Time{}, err
	}
	return InviteURL(baseURL, token), exp, nil
}

// errPending refuses the log-in of an account an admin has not approved yet.
var errPending = domain.Forbidden("Your account is waiting for an admin's approval")

// errBadCredentials is the one answer to every failed login, so it reveals nothing.
var errBadCredentials = domain.Errorf(domain.KindUnauthorized, "Invalid credentials")

// Login checks a password and opens a session. Attempts on one account beyond
// LoginFreeAttempts wait an exponential back-off (a *ThrottledError until it ends), whichever
// address they come from; a successful login resets it. A user with two factors gets no session
// but a *SecondFactorRequired with the challenge LoginTwoFactor takes with a code.
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
	if u.PasswordHash == "" {
		return Session{}, errNoPassword
	}
	var ok bool
	if gerr := s.gate.do(ctx, func() { ok = s.cfg.Hasher.Verify(password, u.PasswordHash) }); gerr != nil {
		return Session{}, gerr
	}
	if !ok {
		return Session{}, errBadCredentials
	}
	s.throttle.succeeded(email)
	if u.Pending {
		return Session{}, errPending
	}
	if err := s.secondFactor(ctx, u, s.cfg.Now()); err != nil {
		return Session{}, err
	}
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
