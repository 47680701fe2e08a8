package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Identities is the storage single sign-on needs beside Accounts.
type Identities interface {
	// UserByIdentity returns the account an identity is linked to, or a KindNotFound error.
	UserByIdentity(ctx context.Context, id domain.Identity) (domain.User, error)
	// CreateUserWithIdentity stores a new user (as CreateUser) linked to id in one transaction;
	// a pair already linked is KindConflict.
	CreateUserWithIdentity(ctx context.Context, u domain.User, id domain.Identity) (domain.User, error)
	// LinkIdentity links id to an existing account; a pair already linked is KindConflict.
	LinkIdentity(ctx context.Context, user uuid.UUID, id domain.Identity) error
	// UsernameTaken reports whether an account has or ever had the username.
	UsernameTaken(ctx context.Context, username string) (bool, error)
	// SetUserRole changes a role; demoting the last admin is KindConflict.
	SetUserRole(ctx context.Context, id uuid.UUID, role domain.Role) error
}

// Claims is what an OpenID provider said of a person in a verified sign-in: the ID token's
// issuer and subject, and the profile claims of the token and the UserInfo endpoint.
type Claims struct {
	domain.Identity
	Email             string
	EmailVerified     bool
	PreferredUsername string
	Name              string
	// Groups is the groups claim (SSOConfig.GroupsClaim at the provider adapter), nil when the
	// provider sent none.
	Groups []string
}

// SSOConfig is single sign-on's settings.
type SSOConfig struct {
	// LinkByEmail lets a first sign-in join the local account with the same e-mail address,
	// when the provider says it verified the address (OIDC_LINK_BY_EMAIL). Off, such a sign-in
	// is refused: whoever controls an account at the provider must not take over a local one.
	LinkByEmail bool
	// AutoRegister lets a first sign-in without a matching account make one, as
	// REGISTRATION_MODE allows the registration form (OIDC_AUTO_REGISTER): open makes it at
	// once, approval makes it wait for an admin, invite and closed refuse.
	AutoRegister bool
	// AdminGroup, when set, makes every sign-in set the account's role from the groups claim:
	// admin when AdminGroup is among the groups, standard otherwise (the last admin stays one).
	AdminGroup string
	// Log notes the role changes and the ones refused; default slog.Default().
	Log *slog.Logger
}

// SSO signs people in with an OpenID Connect provider: it maps a verified sign-in to a local
// account (linked before, linked now by a verified e-mail, or made now) and opens the usual
// session for it. The protocol (state, nonce, PKCE, token verification) is the provider
// adapter's; this is the decision of which account, if any, the sign-in opens.
type SSO struct {
	svc *Service
	ids Identities
	cfg SSOConfig
}

// NewSSO builds single sign-on over the account service.
func NewSSO(svc *Service, ids Identities, cfg SSOConfig) *SSO {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &SSO{svc: svc, ids: ids, cfg: cfg}
}

// The refusals of a sign-in, each a 4xx that changes nothing.
var (
	errSSONoEmail = domain.Forbidden("The provider did not share an e-mail address, which an account needs: " +
		"allow the e-mail scope at the provider")
	errSSOEmailTaken = domain.Errorf(domain.KindConflict, "An account with this e-mail address already exists. "+
		"Log in with its password instead; this instance does not link sign-ins to existing accounts by e-mail")
	errSSOUnverified = domain.Forbidden("An account with this e-mail address already exists, but the provider has not " +
		"verified the address, so the sign-in cannot be linked to it. Verify the address at the provider, or log in with the password")
	errSSONoRegistration = domain.Forbidden("This sign-in has no account here, and this instance does not create " +
		"accounts from sign-ins. Ask an admin")
)

// SignIn opens a session for a verified sign-in: the account linked to its identity; else,
// with LinkByEmail and a verified address, the account with that e-mail, now linked; else a
// new account, when AutoRegister and the registration mode allow. A refusal is a 4xx error
// and changes nothing. With AdminGroup set, the account's role follows the groups claim first.
func (s *SSO) SignIn(ctx context.Context, c Claims) (Session, error) {
	if c.Issuer == "" || c.Subject == "" {
		return Session{}, domain.Invalid("The sign-in names no issuer or subject")
	}
	u, err := s.ids.UserByIdentity(ctx, c.Identity)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		if u, err = s.firstSignIn(ctx, c); err != nil {
			return Session{}, err
		}
	case err != nil:
		return Session{}, err
	}
	if u, err = s.syncRole(ctx, u, c); err != nil {
		return Session{}, err
	}
	if u.Pending {
		return Session{}, errPending
	}
	now := s.svc.cfg.Now()
	refresh, hash, err := newRefreshToken()
	if err != nil {
		return Session{}, err
	}
	if err := s.svc.accounts.CreateSession(ctx, u.ID, hash, now, now.Add(s.svc.cfg.RefreshTTL)); err != nil {
		return Session{}, err
	}
	return s.svc.session(u, refresh, now)
}

// firstSignIn links or creates the account of an identity seen for the first time.
func (s *SSO) firstSignIn(ctx context.Context, c Claims) (domain.User, error) {
	if strings.TrimSpace(c.Email) == "" {
		return domain.User{}, errSSONoEmail
	}
	email, err := domain.NormalizeEmail(c.Email)
	if err != nil {
		return domain.User{}, domain.Forbidden("The provider's e-mail address %q is not one this instance accepts", c.Email)
	}
	existing, err := s.svc.accounts.UserByEmail(ctx, email)
	switch {
	case err == nil:
		if !s.cfg.LinkByEmail {
			return domain.User{}, errSSOEmailTaken
		}
		if !c.EmailVerified {
			return domain.User{}, errSSOUnverified
		}
		if err := s.ids.LinkIdentity(ctx, existing.ID, c.Identity); err != nil {
			return domain.User{}, err
		}
		s.cfg.Log.InfoContext(ctx, "single sign-on linked to an existing account by its verified e-mail",
			"user_id", existing.ID, "issuer", c.Issuer)
		return existing, nil
	case !errors.Is(err, domain.ErrNotFound):
		return domain.User{}, err
	}
	return s.register(ctx, c, email)
}

// register makes the account of a first sign-in, as the registration mode allows.
func (s *SSO) register(ctx context.Context, c Claims, email string) (domain.User, error) {
	u := domain.User{Role: domain.RoleStandard}
	switch {
	case !s.cfg.AutoRegister:
		return domain.User{}, errSSONoRegistration
	case s.svc.cfg.Registration == domain.RegistrationOpen:
	case s.svc.cfg.Registration == domain.RegistrationApproval:
		u.Pending = true
	default:
		return domain.User{}, errSSONoRegistration
	}
	username, err := s.freeUsername(ctx, c, email)
	if err != nil {
		return domain.User{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return domain.User{}, fmt.Errorf("user id: %w", err)
	}
	// No password: the account signs in through the provider until its owner sets one (the
	// password form then asks for no current password).
	u.ID, u.Username, u.Email, u.CreatedAt = id, username, email, s.svc.cfg.Now().UTC()
	return s.ids.CreateUserWithIdentity(ctx, u, c.Identity)
}

// maxUsernameTries bounds the numbered candidates a new account's username is sought among.
const maxUsernameTries = 100

// freeUsername is the first username no account has or had among the candidates from the
// provider's preferred_username, the e-mail's local part and the name: base, base2, base3, …
func (s *SSO) freeUsername(ctx context.Context, c Claims, email string) (string, error) {
	base := ""
	for _, from := range []string{c.PreferredUsername, email, c.Name} {
		if base = UsernameFrom(from); base != "" {
			break
		}
	}
	if base == "" {
		base = "user"
	}
	for i := 1; i <= maxUsernameTries; i++ {
		name := base
		if i > 1 {
			suffix := strconv.Itoa(i)
			name = strings.TrimRight(base[:min(len(base), usernameMax-len(suffix))], "-_") + suffix
		}
		if domain.ReservedUsername(name) {
			continue
		}
		taken, err := s.ids.UsernameTaken(ctx, name)
		if err != nil {
			return "", err
		}
		if !taken {
			return name, nil
		}
	}
	return "", domain.Errorf(domain.KindConflict, "No free username near %q: ask an admin", base)
}

// usernameMax is the longest username (domain.NormalizeUsername's rule).
const usernameMax = 30

// UsernameFrom turns a provider's name for someone into this instance's username rule (2–30 of
// a-z, 0-9, _ and -): an e-mail-like name keeps its local part, letters are lowercased and
// stripped of accents where that is plain, any other run of characters becomes one "-". It is
// "" when fewer than two characters remain.
func UsernameFrom(s string) string {
	if at := strings.IndexByte(s, '@'); at > 0 {
		s = s[:at]
	}
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if f, ok := plainLetters[r]; ok {
			r = f
		}
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
			dash = false
		default:
			if !dash && b.Len() > 0 {
				b.WriteByte('-')
				dash = true
			}
		}
	}
	out := strings.Trim(b.String(), "-")
	if len(out) > usernameMax {
		out = strings.Trim(out[:usernameMax], "-")
	}
	if len(out) < 2 {
		return ""
	}
	return out
}

// plainLetters folds the common accented Latin letters to their base letter.
var plainLetters = func() map[rune]rune {
	m := map[rune]rune{}
	for base, accented := range map[rune]string{
		'a': "àáâãäåā", 'c': "çćč", 'e': "èéêëēěę", 'i': "ìíîïī", 'n': "ñń", 'o': "òóôõöøō",
		'u': "ùúûüūů", 'y': "ýÿ", 's': "śšß", 'z': "źżž", 'l': "ł", 'r': "ř", 'd': "ď", 't': "ť", 'g': "ğ",
	} {
		for _, r := range accented {
			m[r] = base
		}
	}
	return m
}()

// syncRole sets u's role from the groups claim when AdminGroup is set: admin in the group,
// standard outside it. Demoting the last admin is refused by the store; the sign-in then goes
// on with the admin kept, and the refusal is logged.
func (s *SSO) syncRole(ctx context.Context, u domain.User, c Claims) (domain.User, error) {
	if s.cfg.AdminGroup == "" {
		return u, nil
	}
	want := domain.RoleStandard
	if slices.Contains(c.Groups, s.cfg.AdminGroup) {
		want = domain.RoleAdmin
	}
	if u.Role == want {
		return u, nil
	}
	err := s.ids.SetUserRole(ctx, u.ID, want)
	if errors.Is(err, domain.ErrConflict) {
		s.cfg.Log.WarnContext(ctx, "single sign-on: the provider's groups would demote the last admin; kept as admin",
			"user_id", u.ID)
		return u, nil
	}
	if err != nil {
		return domain.User{}, err
	}
	s.cfg.Log.InfoContext(ctx, "single sign-on set the role from the provider's groups", "user_id", u.ID, "role", want)
	u.Role = want
	return u, nil
}

// errNoPassword refuses a password log-in to an account that has no password: one made by a
// single sign-on, whose owner has not set a password yet.
var errNoPassword = domain.Errorf(domain.KindUnauthorized,
	"This account has no password: sign in with single sign-on, then set a password on the account page to log in with one")
