package auth

import (
	"context"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// SelfService is the storage of a user's own account changes.
type SelfService interface {
	// SetPassword replaces the hash and ends every refresh session of the user.
	SetPassword(ctx context.Context, id uuid.UUID, hash string) error
	// SetEmail changes the e-mail; a taken one is KindInvalid.
	SetEmail(ctx context.Context, id uuid.UUID, email string) error
	// RenameUser changes the username with UserUpdated and reserves the old one; a taken or
	// reserved name is KindInvalid.
	RenameUser(ctx context.Context, id uuid.UUID, username string) error
	// LoginSessions lists the user's live log-ins; EndLoginSession ends one (KindNotFound when
	// it is not theirs).
	LoginSessions(ctx context.Context, user uuid.UUID, now time.Time) ([]domain.LoginSession, error)
	EndLoginSession(ctx context.Context, user uuid.UUID, id string) error
	// DeleteUser deletes the account with UserDeleted; the last admin is KindConflict.
	DeleteUser(ctx context.Context, id uuid.UUID) error
}

// errWrongPassword refuses a change whose current password is wrong: 403, not 401, since the
// caller's token is good and a client must not take it for an expired one.
var errWrongPassword = domain.Forbidden("The current password is wrong")

// errSetPasswordFirst refuses a change that asks for the current password of an account that has
// none (made by a single sign-on): it needs one set first.
var errSetPasswordFirst = domain.Forbidden("This account has no password yet (it signs in with single sign-on): set one first")

// checkPassword verifies the caller's current password, through the login throttle (a stolen
// session cannot guess the password faster than a login could) and the hashing gate.
func (s *Service) checkPassword(ctx context.Context, me uuid.UUID, password string) (domain.User, error) {
	u, err := s.accounts.UserByID(ctx, me)
	if err != nil {
		return domain.User{}, err
	}
	if u.PasswordHash == "" {
		return domain.User{}, errSetPasswordFirst
	}
	if err := s.throttle.begin(u.Email); err != nil {
		return domain.User{}, err
	}
	var ok bool
	if gerr := s.gate.do(ctx, func() { ok = s.cfg.Hasher.Verify(password, u.PasswordHash) }); gerr != nil {
		return domain.User{}, gerr
	}
	if !ok {
		return domain.User{}, errWrongPassword
	}
	s.throttle.succeeded(u.Email)
	return u, nil
}

// ChangePassword sets a new password when the current one is right, ends every session of the
// user (a thief's included) and returns a new one for the caller.
func (s *Service) ChangePassword(ctx context.Context, me uuid.UUID, current, next string) (Session, error) {
	if err := domain.ValidatePassword(next); err != nil {
		return Session{}, err
	}
	u, err := s.accounts.UserByID(ctx, me)
	if err != nil {
		return Session{}, err
	}
	// An account made by a single sign-on has no password: its owner, signed in, sets a first
	// one without a current one.
	if u.PasswordHash != "" {
		if u, err = s.checkPassword(ctx, me, current); err != nil {
			return Session{}, err
		}
	}
	var hash string
	if gerr := s.gate.do(ctx, func() { hash, err = s.cfg.Hasher.Hash(next) }); gerr != nil {
		return Session{}, gerr
	}
	if err != nil {
		return Session{}, err
	}
	if err := s.accounts.SetPassword(ctx, me, hash); err != nil {
		return Session{}, err
	}
	now := s.cfg.Now()
	refresh, rhash, err := newRefreshToken()
	if err != nil {
		return Session{}, err
	}
	if err := s.accounts.CreateSession(ctx, me, rhash, now, now.Add(s.cfg.RefreshTTL)); err != nil {
		return Session{}, err
	}
	u.PasswordHash = hash
	return s.session(u, refresh, now)
}

// ChangeEmail sets a new e-mail address when the current password is right. With mail
// (MailEnabled) the new address gets a confirmation link and takes effect only when it is
// followed; without, the change is direct.
func (s *Service) ChangeEmail(ctx context.Context, me uuid.UUID, current, email string) error {
	email, err := domain.NormalizeEmail(email)
	if err != nil {
		return err
	}
	if _, err := s.checkPassword(ctx, me, current); err != nil {
		return err
	}
	if s.cfg.Mail {
		return s.requestConfirmation(ctx, me, email)
	}
	return s.accounts.SetEmail(ctx, me, email)
}

// ChangeUsername renames the caller: followers get an Update of the actor, and the old name
// stays reserved (remote servers know it). The instance actor's name and every name another
// account has or had are refused.
func (s *Service) ChangeUsername(ctx context.Context, me uuid.UUID, username string) (string, error) {
	username, err := domain.NormalizeUsername(username)
	if err != nil {
		return "", err
	}
	if domain.ReservedUsername(username) {
		return "", domain.Invalid("Username already taken")
	}
	u, err := s.accounts.UserByID(ctx, me)
	if err != nil {
		return "", err
	}
	if u.Username == username {
		return username, nil
	}
	return username, s.accounts.RenameUser(ctx, me, username)
}

// Sessions lists the caller's live log-ins.
func (s *Service) Sessions(ctx context.Context, me uuid.UUID) ([]domain.LoginSession, error) {
	return s.accounts.LoginSessions(ctx, me, s.cfg.Now())
}

// EndSession ends one of the caller's log-ins.
func (s *Service) EndSession(ctx context.Context, me uuid.UUID, id string) error {
	return s.accounts.EndLoginSession(ctx, me, id)
}

// DeleteAccount deletes the caller's account and everything theirs when the password is right:
// UserDeleted, committed with it, sends the actor's Delete to every follower's server through
// the outbox, and the username is never reissued. The last admin is refused (KindConflict).
func (s *Service) DeleteAccount(ctx context.Context, me uuid.UUID, current string) error {
	if _, err := s.checkPassword(ctx, me, current); err != nil {
		return err
	}
	if err := s.accounts.DeleteUser(ctx, me); err != nil {
		return err
	}
	if s.cfg.Forget != nil {
		s.cfg.Forget(me)
	}
	return nil
}
