package web

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"moviesdiary/internal/usecase/auth"
)

// refreshGrace is how long a rotated refresh token still yields the session it was rotated
// into. Two pages opened at once after the access token expired (tabs restored together) both
// present the same refresh token; without the grace the second would count as a replay and the
// auth use case would end the whole session.
const refreshGrace = 10 * time.Second

// refresher rotates refresh tokens once per token: concurrent and repeated presentations of one
// token within refreshGrace share the first rotation's session.
type refresher struct {
	rotate func(ctx context.Context, refreshToken string) (auth.Session, error)
	now    func() time.Time
	group  singleflight.Group
	mu     sync.Mutex
	recent map[string]rotation // recent is keyed by the token's hash, never the token
}

type rotation struct {
	sess auth.Session
	at   time.Time
}

func newRefresher(rotate func(context.Context, string) (auth.Session, error)) *refresher {
	return &refresher{rotate: rotate, now: time.Now, recent: map[string]rotation{}}
}

// refresh returns the session refreshToken rotates into.
func (f *refresher) refresh(ctx context.Context, refreshToken string) (auth.Session, error) {
	key := auth.HashToken(refreshToken)
	now := f.now()
	f.mu.Lock()
	for k, r := range f.recent {
		if now.Sub(r.at) > refreshGrace {
			delete(f.recent, k)
		}
	}
	r, ok := f.recent[key]
	f.mu.Unlock()
	if ok {
		return r.sess, nil
	}
	v, err, _ := f.group.Do(key, func() (any, error) {
		sess, err := f.rotate(context.WithoutCancel(ctx), refreshToken)
		if err != nil {
			return auth.Session{}, err
		}
		f.mu.Lock()
		f.recent[key] = rotation{sess: sess, at: f.now()}
		f.mu.Unlock()
		return sess, nil
	})
	return v.(auth.Session), err
}
