package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"moviesdiary/internal/domain"
)

// TOTP codes: RFC 6238 with the authenticator apps' defaults (SHA-1, six digits, 30 s). A code
// of the step before or after the current one is accepted too (a phone's clock drifts), but
// never a code of a step at or before the last one accepted: a code works once.
const (
	totpPeriod = 30
	totpSkew   = 1
	// RecoveryCodeCount is how many single-use recovery codes an enrolment makes.
	RecoveryCodeCount = 10
)

// TwoFactorStore is the storage of the TOTP enrolments and their recovery codes.
type TwoFactorStore interface {
	// BeginTwoFactor stores a new secret not yet enabled (KindConflict when one is enabled).
	BeginTwoFactor(ctx context.Context, user uuid.UUID, secret string, now time.Time) error
	// TwoFactor returns the enrolment, KindNotFound when there is none.
	TwoFactor(ctx context.Context, user uuid.UUID) (domain.TwoFactor, error)
	// EnableTwoFactor turns the enrolment on with its first step and the codes' hashes.
	EnableTwoFactor(ctx context.Context, user uuid.UUID, step int64, codeHashes []string, now time.Time) error
	// ReplaceRecoveryCodes stores new recovery codes' hashes in place of the old ones.
	ReplaceRecoveryCodes(ctx context.Context, user uuid.UUID, codeHashes []string) error
	// UseTwoFactorStep spends a time step: false when it or a later one was spent (a replay).
	UseTwoFactorStep(ctx context.Context, user uuid.UUID, step int64) (bool, error)
	// UseRecoveryCode spends a recovery code by hash: false when there is no unused one.
	UseRecoveryCode(ctx context.Context, user uuid.UUID, hash string, now time.Time) (bool, error)
	// DisableTwoFactor deletes the secret and the recovery codes.
	DisableTwoFactor(ctx context.Context, user uuid.UUID) error
}

// Challenger signs and checks the short-lived challenge a password step hands a user with two
// factors; only the code step accepts it (it is no access token).
type Challenger interface {
	IssueChallenge(userID uuid.UUID, now time.Time) (string, time.Time, error)
	VerifyChallenge(token string) (uuid.UUID, error)
}

// errSecondFactor is what SecondFactorRequired is to a caller that does not know it: a 401.
var errSecondFactor = domain.Errorf(domain.KindUnauthorized, "Two-factor code required")

// SecondFactorRequired answers a right password of a user with two factors: the log-in goes on
// with the challenge and a code (LoginTwoFactor). It unwraps to a KindUnauthorized error, so a
// caller unaware of two factors refuses the log-in.
type SecondFactorRequired struct {
	Challenge string
	ExpiresAt time.Time
}

func (e *SecondFactorRequired) Error() string { return errSecondFactor.Error() }

// Unwrap is the 401 the error is to callers unaware of two factors.
func (e *SecondFactorRequired) Unwrap() error { return errSecondFactor }

// The refusals of a code.
var (
	errWrongCode    = domain.Errorf(domain.KindUnauthorized, "Invalid two-factor code")
	errReplayedCode = domain.Errorf(domain.KindUnauthorized, "This two-factor code was already used: wait for the next one")
	errBadChallenge = domain.Errorf(domain.KindUnauthorized, "This sign-in has expired: log in again")
	errNoEnrolment  = domain.NotFound("Set up two-factor authentication first")
	errNeedProof    = domain.Invalid("Give your current password or a two-factor code")
)

// secondFactor is nil for a user without two factors, else the SecondFactorRequired of a new
// challenge.
func (s *Service) secondFactor(ctx context.Context, u domain.User, now time.Time) error {
	tf, err := s.accounts.TwoFactor(ctx, u.ID)
	if errors.Is(err, domain.ErrNotFound) || err == nil && !tf.Enabled {
		return nil
	}
	if err != nil {
		return err
	}
	if s.cfg.Challenges == nil {
		return errSecondFactor
	}
	c, exp, err := s.cfg.Challenges.IssueChallenge(u.ID, now)
	if err != nil {
		return err
	}
	return &SecondFactorRequired{Challenge: c, ExpiresAt: exp}
}

// LoginTwoFactor finishes a log-in a password step began: the challenge it returned and a TOTP
// code or an unused recovery code open the session. Wrong codes are throttled per account like
// passwords.
func (s *Service) LoginTwoFactor(ctx context.Context, challenge, code string) (Session, error) {
	if s.cfg.Challenges == nil {
		return Session{}, errBadChallenge
	}
	id, err := s.cfg.Challenges.VerifyChallenge(challenge)
	if err != nil {
		return Session{}, errBadChallenge
	}
	if err := s.checkCode(ctx, id, code); err != nil {
		return Session{}, err
	}
	u, err := s.accounts.UserByID(ctx, id)
	if errors.Is(err, domain.ErrNotFound) {
		return Session{}, errBadChallenge
	}
	if err != nil {
		return Session{}, err
	}
	if u.Pending {
		return Session{}, errPending
	}
	return s.openSession(ctx, u)
}

// openSession stores a new refresh session of u and returns it with an access token.
func (s *Service) openSession(ctx context.Context, u domain.User) (Session, error) {
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

// codeThrottleKey keys a user's code attempts in the login throttle, apart from their e-mail's
// password attempts.
func codeThrottleKey(id uuid.UUID) string { return "2fa:" + id.String() }

// checkCode accepts a TOTP code not used before or an unused recovery code of an enabled user,
// and spends it, through the login throttle (one more guess per attempt).
func (s *Service) checkCode(ctx context.Context, id uuid.UUID, code string) error {
	key := codeThrottleKey(id)
	if err := s.throttle.begin(key); err != nil {
		return err
	}
	tf, err := s.accounts.TwoFactor(ctx, id)
	if errors.Is(err, domain.ErrNotFound) || err == nil && !tf.Enabled {
		return errWrongCode
	}
	if err != nil {
		return err
	}
	c := normalizeCode(code)
	if isTOTPCode(c) {
		step, ok := matchStep(tf.Secret, c, s.cfg.Now())
		if !ok {
			return errWrongCode
		}
		if step <= tf.LastStep {
			return errReplayedCode
		}
		fresh, err := s.accounts.UseTwoFactorStep(ctx, id, step)
		if err != nil {
			return err
		}
		if !fresh {
			return errReplayedCode
		}
	} else {
		ok, err := s.accounts.UseRecoveryCode(ctx, id, recoveryHash(id, c), s.cfg.Now())
		if err != nil {
			return err
		}
		if !ok {
			return errWrongCode
		}
	}
	s.throttle.succeeded(key)
	return nil
}

// normalizeCode drops the spaces and dashes people type and lowercases the rest.
func normalizeCode(code string) string {
	return strings.ToLower(strings.NewReplacer(" ", "", "-", "", "\t", "").Replace(code))
}

// isTOTPCode reports whether c is six digits (else it may be a recovery code).
func isTOTPCode(c string) bool {
	if len(c) != 6 {
		return false
	}
	for _, r := range c {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// matchStep is the time step within the skew of now whose code is c.
func matchStep(secret, c string, now time.Time) (int64, bool) {
	cur := now.Unix() / totpPeriod
	for step := cur - totpSkew; step <= cur+totpSkew; step++ {
		want, err := totp.GenerateCodeCustom(secret, time.Unix(step*totpPeriod, 0), totp.ValidateOpts{
			Period: totpPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(c)) == 1 {
			return step, true
		}
	}
	return 0, false
}

// recoveryHash is the stored form of a recovery code: SHA-256 of the user and the normalised
// code (80 random bits, so a fast hash is enough; the user keeps equal codes of two users apart).
func recoveryHash(id uuid.UUID, code string) string {
	sum := sha256.Sum256([]byte(id.String() + ":" + code))
	return hex.EncodeToString(sum[:])
}

// newRecoveryCodes makes RecoveryCodeCount codes of 80 random bits, as xxxx-xxxx-xxxx-xxxx in
// lowercase base32, with their hashes.
func newRecoveryCodes(id uuid.UUID) (codes, hashes []string, err error) {
	enc := base32.StdEncoding.WithPadding(base32.NoPadding)
	for range RecoveryCodeCount {
		b := make([]byte, 10)
		if _, err := rand.Read(b); err != nil {
			return nil, nil, fmt.Errorf("recovery code: %w", err)
		}
		c := strings.ToLower(enc.EncodeToString(b))
		codes = append(codes, c[0:4]+"-"+c[4:8]+"-"+c[8:12]+"-"+c[12:16])
		hashes = append(hashes, recoveryHash(id, c))
	}
	return codes, hashes, nil
}

// Enrolment is a begun TOTP enrolment: the secret for an authenticator app, as text and as an
// otpauth:// URI (what a QR code would hold).
type Enrolment struct {
	Secret string
	URI    string
}

// BeginTwoFactor makes a new TOTP secret for the caller when their password is right; two
// factors are on only once a code confirms it (ConfirmTwoFactor). A caller with two factors on
// is KindConflict.
func (s *Service) BeginTwoFactor(ctx context.Context, me uuid.UUID, password string) (Enrolment, error) {
	u, err := s.checkPassword(ctx, me, password)
	if err != nil {
		return Enrolment{}, err
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: s.cfg.Issuer, AccountName: u.Username, Period: totpPeriod,
		Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		return Enrolment{}, fmt.Errorf("totp secret: %w", err)
	}
	if err := s.accounts.BeginTwoFactor(ctx, me, key.Secret(), s.cfg.Now()); err != nil {
		return Enrolment{}, err
	}
	return Enrolment{Secret: key.Secret(), URI: key.URL()}, nil
}

// ConfirmTwoFactor turns two factors on when code is the begun enrolment's current code, and
// returns the recovery codes, shown this once.
func (s *Service) ConfirmTwoFactor(ctx context.Context, me uuid.UUID, code string) ([]string, error) {
	key := codeThrottleKey(me)
	if err := s.throttle.begin(key); err != nil {
		return nil, err
	}
	tf, err := s.accounts.TwoFactor(ctx, me)
	if errors.Is(err, domain.ErrNotFound) {
		return nil, errNoEnrolment
	}
	if err != nil {
		return nil, err
	}
	if tf.Enabled {
		return nil, domain.Errorf(domain.KindConflict, "Two-factor authentication is already on")
	}
	step, ok := matchStep(tf.Secret, normalizeCode(code), s.cfg.Now())
	if !ok {
		return nil, domain.Forbidden("Invalid two-factor code: check your authenticator app's clock and try the next code")
	}
	codes, hashes, err := newRecoveryCodes(me)
	if err != nil {
		return nil, err
	}
	if err := s.accounts.EnableTwoFactor(ctx, me, step, hashes, s.cfg.Now()); err != nil {
		return nil, err
	}
	s.throttle.succeeded(key)
	return codes, nil
}

// NewRecoveryCodes replaces the caller's recovery codes when their password is right.
func (s *Service) NewRecoveryCodes(ctx context.Context, me uuid.UUID, password string) ([]string, error) {
	if _, err := s.checkPassword(ctx, me, password); err != nil {
		return nil, err
	}
	codes, hashes, err := newRecoveryCodes(me)
	if err != nil {
		return nil, err
	}
	if err := s.accounts.ReplaceRecoveryCodes(ctx, me, hashes); err != nil {
		return nil, err
	}
	return codes, nil
}

// DisableTwoFactor turns the caller's two factors off, proved by their password or a code (a
// TOTP or recovery code, spent). A refused proof is KindForbidden: the caller's session is good.
func (s *Service) DisableTwoFactor(ctx context.Context, me uuid.UUID, password, code string) error {
	switch {
	case password != "":
		if _, err := s.checkPassword(ctx, me, password); err != nil {
			return err
		}
	case code != "":
		if err := s.checkCode(ctx, me, code); err != nil {
			if domain.KindOf(err) == domain.KindUnauthorized {
				return domain.Forbidden("%s", err.Error())
			}
			return err
		}
	default:
		return errNeedProof
	}
	return s.accounts.DisableTwoFactor(ctx, me)
}

// TwoFactorStatus is the caller's enrolment without its secret: the zero value when they have
// none.
func (s *Service) TwoFactorStatus(ctx context.Context, me uuid.UUID) (domain.TwoFactor, error) {
	tf, err := s.accounts.TwoFactor(ctx, me)
	if errors.Is(err, domain.ErrNotFound) {
		return domain.TwoFactor{}, nil
	}
	tf.Secret, tf.Pending = "", !tf.Enabled
	return tf, err
}

// RequireTwoFactor reports whether the instance requires two factors of everyone
// (REQUIRE_TWO_FACTOR).
func (s *Service) RequireTwoFactor() bool { return s.cfg.RequireTwoFactor }

// MustEnrol reports whether the user must turn two factors on before anything else: the instance
// requires them and the user has none enabled. An account without a password (made by single
// sign-on) signs in only through its provider, whose factors guard it: it is not asked, until it
// sets a password.
func (s *Service) MustEnrol(ctx context.Context, id uuid.UUID) (bool, error) {
	if !s.cfg.RequireTwoFactor {
		return false, nil
	}
	// Every authenticated request asks: the common answer (enabled) costs one read.
	tf, err := s.accounts.TwoFactor(ctx, id)
	switch {
	case err == nil && tf.Enabled:
		return false, nil
	case err != nil && !errors.Is(err, domain.ErrNotFound):
		return false, err
	}
	u, err := s.accounts.UserByID(ctx, id)
	if err != nil {
		return false, err
	}
	return u.PasswordHash != "", nil
}
