package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"golang.org/x/time/rate"

	"moviesdiary/internal/domain"
)

// AccessTokenPrefix starts every personal access token, so a leaked one is recognisable (secret
// scanners, logs) and the API tells it from a JWT without a lookup.
const AccessTokenPrefix = "mdp_"

// The schedule of failed access-token lookups per client address: TokenFailuresPerMinute, then
// refused (429) until the budget refills. It is apart from the login throttle, so a script with
// a stale token cannot lock its owner's password login out, nor a password guesser the scripts.
const TokenFailuresPerMinute = 20

// touchEvery is how often a token's last-used time is written at most.
const touchEvery = time.Minute

// AccessTokenStore is the storage of personal access tokens.
type AccessTokenStore interface {
	CreateAccessToken(ctx context.Context, t domain.AccessToken) error
	// AccessTokens lists a user's tokens, the newest first.
	AccessTokens(ctx context.Context, user uuid.UUID) ([]domain.AccessToken, error)
	// AccessTokenByHash returns the token of a hash, KindNotFound when there is none.
	AccessTokenByHash(ctx context.Context, hash string) (domain.AccessToken, error)
	// TouchAccessToken records a use at now unless one at or after since is recorded.
	TouchAccessToken(ctx context.Context, id uuid.UUID, now, since time.Time) error
	// RevokeAccessToken deletes one of the user's tokens (KindNotFound when it is not theirs).
	RevokeAccessToken(ctx context.Context, user, id uuid.UUID) error
}

// NewAccessToken is what a user asks for when making a token.
type NewAccessToken struct {
	Name  string
	Scope string
	// ExpiresAt is nil for a token that never expires.
	ExpiresAt *time.Time
}

// maxTokenName bounds a token's name.
const maxTokenName = 100

// CreateAccessToken makes a personal access token for the caller and returns it with its secret,
// shown this once: only its hash is kept. Only an admin may make an admin token.
func (s *Service) CreateAccessToken(ctx context.Context, me uuid.UUID, req NewAccessToken) (domain.AccessToken, string, error) {
	name := strings.TrimSpace(req.Name)
	if name == "" || utf8.RuneCountInString(name) > maxTokenName {
		return domain.AccessToken{}, "", domain.Invalid("A token needs a name of 1-%d characters", maxTokenName)
	}
	scope, err := domain.ParseTokenScope(req.Scope)
	if err != nil {
		return domain.AccessToken{}, "", err
	}
	now := s.cfg.Now().UTC()
	if req.ExpiresAt != nil && !req.ExpiresAt.After(now) {
		return domain.AccessToken{}, "", domain.Invalid("The expiry must be in the future")
	}
	if scope == domain.ScopeAdmin {
		if err := s.requireAdmin(ctx, me); err != nil {
			return domain.AccessToken{}, "", domain.Forbidden("Only an admin can make an admin token")
		}
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return domain.AccessToken{}, "", fmt.Errorf("access token: %w", err)
	}
	secret := AccessTokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	id, err := uuid.NewV7()
	if err != nil {
		return domain.AccessToken{}, "", fmt.Errorf("access token id: %w", err)
	}
	t := domain.AccessToken{ID: id, UserID: me, Name: name, Scope: scope, Hash: HashToken(secret), CreatedAt: now.Truncate(time.Millisecond)}
	if req.ExpiresAt != nil {
		exp := req.ExpiresAt.UTC().Truncate(time.Millisecond)
		t.ExpiresAt = &exp
	}
	if err := s.accounts.CreateAccessToken(ctx, t); err != nil {
		return domain.AccessToken{}, "", err
	}
	return t, secret, nil
}

// AccessTokens lists the caller's tokens (never their secrets).
func (s *Service) AccessTokens(ctx context.Context, me uuid.UUID) ([]domain.AccessToken, error) {
	return s.accounts.AccessTokens(ctx, me)
}

// RevokeAccessToken deletes one of the caller's tokens: it stops working at once.
func (s *Service) RevokeAccessToken(ctx context.Context, me, id uuid.UUID) error {
	return s.accounts.RevokeAccessToken(ctx, me, id)
}

// errBadAccessToken answers an unknown (or revoked) access token.
var errBadAccessToken = domain.Errorf(domain.KindUnauthorized, "Unauthorized: Invalid or revoked access token")

// errExpiredAccessToken answers an expired one.
var errExpiredAccessToken = domain.Errorf(domain.KindUnauthorized, "Unauthorized: This access token has expired")

// AuthenticateAccessToken returns the personal access token raw is the secret of. client names
// the caller (its address) for the failures' own limiter: after TokenFailuresPerMinute failed
// lookups in a minute its attempts are refused with a *ThrottledError until the budget refills.
// A use is recorded at most once a minute per token.
func (s *Service) AuthenticateAccessToken(ctx context.Context, raw, client string) (domain.AccessToken, error) {
	now := s.cfg.Now()
	if wait := s.tokenFailures.wait(client, now); wait > 0 {
		return domain.AccessToken{}, &ThrottledError{RetryAfter: wait, What: "failed access token attempts from your address"}
	}
	t, err := s.accounts.AccessTokenByHash(ctx, HashToken(raw))
	switch {
	case errors.Is(err, domain.ErrNotFound):
		s.tokenFailures.failed(client, now)
		return domain.AccessToken{}, errBadAccessToken
	case err != nil:
		return domain.AccessToken{}, err
	case t.Expired(now):
		s.tokenFailures.failed(client, now)
		return domain.AccessToken{}, errExpiredAccessToken
	}
	if t.LastUsedAt == nil || now.Sub(*t.LastUsedAt) >= touchEvery {
		// Bookkeeping only: a failed write (a busy database) must not refuse the request.
		_ = s.accounts.TouchAccessToken(ctx, t.ID, now, now.Add(-touchEvery))
	}
	return t, nil
}

// failureLimiter counts failures per key in token buckets of perMinute, refilled evenly; a key
// whose bucket is empty waits. Successes cost nothing.
type failureLimiter struct {
	perMinute int
	mu        sync.Mutex
	keys      map[string]*rate.Limiter
}

// failureLimiterMax bounds the keys remembered; beyond it, full buckets are dropped.
const failureLimiterMax = 10_000

func newFailureLimiter(perMinute int) *failureLimiter {
	return &failureLimiter{perMinute: perMinute, keys: map[string]*rate.Limiter{}}
}

// wait is how long key must wait before its next attempt, 0 when it may go on.
func (l *failureLimiter) wait(key string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	lim := l.keys[key]
	if lim == nil || lim.TokensAt(now) >= 1 {
		return 0
	}
	r := lim.ReserveN(now, 1)
	d := r.DelayFrom(now)
	r.CancelAt(now)
	return max(d, time.Second)
}

// failed spends one of key's failures.
func (l *failureLimiter) failed(key string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.keys) >= failureLimiterMax {
		for k, lim := range l.keys {
			if lim.TokensAt(now) >= float64(l.perMinute) {
				delete(l.keys, k)
			}
		}
	}
	lim := l.keys[key]
	if lim == nil {
		lim = rate.NewLimiter(rate.Every(time.Minute/time.Duration(l.perMinute)), l.perMinute)
		l.keys[key] = lim
	}
	lim.AllowN(now, 1)
}
