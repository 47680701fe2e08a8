package auth

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// ExistenceTTLDefault is how long the Authenticator trusts that a token's user exists before it
// looks again. A user deleted by another process keeps working for at most this long; one
// deleted through this process is forgotten at once (Forget).
const ExistenceTTLDefault = 5 * time.Second

// existenceCacheMax bounds the users remembered; beyond it, expired entries are dropped.
const existenceCacheMax = 10_000

// Users is what the Authenticator reads: the user by id, KindNotFound when there is none.
type Users interface {
	UserByID(ctx context.Context, id uuid.UUID) (domain.User, error)
}

// Authenticator turns a bearer token into its user: the signature and expiry (verify), then
// that the user still exists — a token outlives the account it was issued for, and a deleted
// user's token must get 401, not a 200 on reads and a foreign-key failure on writes. Existence
// is cached for ttl, so a busy client costs one lookup per ttl, not one per request.
type Authenticator struct {
	verify func(token string) (uuid.UUID, error)
	users  Users
	ttl    time.Duration
	now    func() time.Time

	mu   sync.Mutex
	seen map[uuid.UUID]time.Time // seen is when each user was last found
}

// NewAuthenticator builds the authenticator; ttl 0 means ExistenceTTLDefault, now nil time.Now.
func NewAuthenticator(verify func(string) (uuid.UUID, error), users Users, ttl time.Duration, now func() time.Time) *Authenticator {
	if ttl <= 0 {
		ttl = ExistenceTTLDefault
	}
	if now == nil {
		now = time.Now
	}
	return &Authenticator{verify: verify, users: users, ttl: ttl, now: now, seen: map[uuid.UUID]time.Time{}}
}

// errUserGone answers a valid token whose user no longer exists.
var errUserGone = domain.Errorf(domain.KindUnauthorized, "Unauthorized: Invalid or expired token")

// Authenticate returns the user of a valid token whose user exists; anything else is a
// KindUnauthorized error.
func (a *Authenticator) Authenticate(ctx context.Context, token string) (uuid.UUID, error) {
	id, err := a.verify(token)
	if err != nil {
		return uuid.Nil, err
	}
	now := a.now()
	a.mu.Lock()
	at, ok := a.seen[id]
	a.mu.Unlock()
	if ok && now.Sub(at) < a.ttl {
		return id, nil
	}
	if _, err := a.users.UserByID(ctx, id); err != nil {
		a.Forget(id)
		if errors.Is(err, domain.ErrNotFound) {
			return uuid.Nil, errUserGone
		}
		return uuid.Nil, err
	}
	a.mu.Lock()
	if len(a.seen) >= existenceCacheMax {
		for k, t := range a.seen {
			if now.Sub(t) >= a.ttl {
				delete(a.seen, k)
			}
		}
	}
	a.seen[id] = now
	a.mu.Unlock()
	return id, nil
}

// Forget drops what is remembered of a user, so their next request checks again: call it when
// an account is deleted.
func (a *Authenticator) Forget(id uuid.UUID) {
	a.mu.Lock()
	delete(a.seen, id)
	a.mu.Unlock()
}
