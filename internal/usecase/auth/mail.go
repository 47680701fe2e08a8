package auth

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// MailLinks is the storage of the mailed links (password reset, e-mail confirmation). The
// worker's mail handler mints each link's token and mails it; here links are requested and spent.
type MailLinks interface {
	// RequestMailLink stores a requested link with the event that mails it and returns its id,
	// unless the user asked for limit links of its kind since since (then uuid.Nil, nothing
	// stored).
	RequestMailLink(ctx context.Context, l domain.MailLink, limit int, since time.Time) (uuid.UUID, error)
	// ResetPassword spends a reset link and sets the password hash, ending every session of the
	// account; an unknown, used or expired link is KindForbidden and changes nothing.
	ResetPassword(ctx context.Context, tokenHash, passwordHash string, now time.Time) (uuid.UUID, error)
	// ConfirmEmail spends a confirmation link and makes its address the account's; an unknown,
	// used or expired link is KindForbidden, a taken address KindInvalid.
	ConfirmEmail(ctx context.Context, tokenHash string, now time.Time) error
}

// The mailed links' throttle: an account gets at most this many links of a kind per
// domain.MailLinkTTL (an hour); further requests mail nothing.
const (
	ResetLinksPerHour        = 3
	ConfirmationLinksPerHour = 5
)

// errNoMail refuses what needs mail on an instance without SMTP settings.
var errNoMail = domain.Errorf(domain.KindUnsupported,
	"Password reset needs mail, which this instance has not set up: ask your admin to reset it (server admin users reset-password)")

// errBadLink answers an empty link token as the store answers an unknown one.
var errBadLink = domain.Forbidden("This link is invalid, used or expired: ask for a new one")

// errTooManyConfirmations refuses an e-mail change beyond ConfirmationLinksPerHour.
var errTooManyConfirmations = domain.Errorf(domain.KindConflict,
	"Too many confirmation mails in the last hour: follow the last one, or try again later")

// MailEnabled reports whether the instance sends mail (SMTP_HOST set): password reset works, and
// e-mail changes and registrations are confirmed by a link.
func (s *Service) MailEnabled() bool { return s.cfg.Mail }

// RequestPasswordReset mails a reset link to the account with that e-mail. It answers the same
// whether or not such an account exists (nil), so it tells nobody which addresses have one; an
// account asking more than ResetLinksPerHour times an hour gets no more mail. Without mail it
// refuses (KindUnsupported): the admin's CLI resets passwords then.
func (s *Service) RequestPasswordReset(ctx context.Context, email string) error {
	if !s.cfg.Mail {
		return errNoMail
	}
	u, err := s.accounts.UserByEmail(ctx, email)
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	now := s.cfg.Now()
	_, err = s.accounts.RequestMailLink(ctx, domain.MailLink{UserID: u.ID, Kind: domain.MailPasswordReset, Email: u.Email,
		RequestedAt: now, ExpiresAt: now.Add(domain.MailLinkTTL)}, ResetLinksPerHour, now.Add(-domain.MailLinkTTL))
	return err
}

// ResetPassword sets a new password with a reset link's token: the link works once and for an
// hour, and every session of the account ends (a thief's included). A bad token is
// KindForbidden and changes nothing.
func (s *Service) ResetPassword(ctx context.Context, token, password string) error {
	if token == "" {
		return errBadLink
	}
	if err := domain.ValidatePassword(password); err != nil {
		return err
	}
	var (
		hash string
		err  error
	)
	if gerr := s.gate.do(ctx, func() { hash, err = s.cfg.Hasher.Hash(password) }); gerr != nil {
		return gerr
	}
	if err != nil {
		return err
	}
	_, err = s.accounts.ResetPassword(ctx, HashToken(token), hash, s.cfg.Now())
	return err
}

// ConfirmEmail follows an e-mail confirmation link: its address becomes the account's. A bad
// token is KindForbidden and changes nothing.
func (s *Service) ConfirmEmail(ctx context.Context, token string) error {
	if token == "" {
		return errBadLink
	}
	return s.accounts.ConfirmEmail(ctx, HashToken(token), s.cfg.Now())
}

// ResendConfirmation mails the caller's unconfirmed address its confirmation link again (the
// first one lost, expired or spent on another device). A confirmed address is KindInvalid;
// without mail KindUnsupported; beyond ConfirmationLinksPerHour an hour KindConflict.
func (s *Service) ResendConfirmation(ctx context.Context, me uuid.UUID) error {
	if !s.cfg.Mail {
		return errNoMail
	}
	u, err := s.accounts.UserByID(ctx, me)
	if err != nil {
		return err
	}
	if !u.EmailUnconfirmed {
		return domain.Invalid("Your e-mail address is already confirmed")
	}
	now := s.cfg.Now()
	id, err := s.accounts.RequestMailLink(ctx, domain.MailLink{UserID: me, Kind: domain.MailEmailConfirmation, Email: u.Email,
		RequestedAt: now, ExpiresAt: now.Add(domain.MailLinkTTL)}, ConfirmationLinksPerHour, now.Add(-domain.MailLinkTTL))
	if err == nil && id == uuid.Nil {
		return errTooManyConfirmations
	}
	return err
}

// requestConfirmation mails a confirmation link for email to the account me, after checking that
// no other account has the address.
func (s *Service) requestConfirmation(ctx context.Context, me uuid.UUID, email string) error {
	other, err := s.accounts.UserByEmail(ctx, email)
	switch {
	case err == nil && other.ID != me:
		return domain.Invalid("Email already registered")
	case err == nil:
		return nil // already theirs
	case !errors.Is(err, domain.ErrNotFound):
		return err
	}
	now := s.cfg.Now()
	id, err := s.accounts.RequestMailLink(ctx, domain.MailLink{UserID: me, Kind: domain.MailEmailConfirmation, Email: email,
		RequestedAt: now, ExpiresAt: now.Add(domain.MailLinkTTL)}, ConfirmationLinksPerHour, now.Add(-domain.MailLinkTTL))
	if err == nil && id == uuid.Nil {
		return errTooManyConfirmations
	}
	return err
}
