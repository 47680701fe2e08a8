// Package social is the follow and block use cases between users, and the lists they produce.
// Follows between users of this instance are recorded directly and wait for the target's
// acceptance; following a remote actor needs federation.
package social

import (
	"context"
	"errors"
	"net/url"
	"strings"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Store is the storage of follows and blocks. Each write commits its event in the same
// transaction and reports a missing follow or block as KindNotFound.
type Store interface {
	UserByUsername(ctx context.Context, username string) (domain.User, error)
	UserByID(ctx context.Context, id uuid.UUID) (domain.User, error)
	// Follow records a pending follow with FollowRequested; an existing follow changes nothing.
	// A target that blocked the follower is KindForbidden.
	Follow(ctx context.Context, follower uuid.UUID, target domain.SocialIdentity) error
	Unfollow(ctx context.Context, follower uuid.UUID, target domain.SocialIdentity) error
	AcceptFollower(ctx context.Context, owner uuid.UUID, follower domain.SocialIdentity) error
	RejectFollower(ctx context.Context, owner uuid.UUID, follower domain.SocialIdentity) error
	RemoveFollower(ctx context.Context, owner uuid.UUID, follower domain.SocialIdentity) error
	// Block records a block and ends the follows between the two, with ActorBlocked.
	Block(ctx context.Context, blocker uuid.UUID, target domain.SocialIdentity) error
	Unblock(ctx context.Context, blocker uuid.UUID, target domain.SocialIdentity) error
	Following(ctx context.Context, user uuid.UUID) ([]domain.Actor, error)
	Followers(ctx context.Context, user uuid.UUID, pending bool) ([]domain.Actor, error)
	Blocked(ctx context.Context, user uuid.UUID) ([]domain.Actor, error)
}

// Service runs the social use cases.
type Service struct {
	store   Store
	baseURL *url.URL
	// remote resolves a remote "@user@host" handle to its actor URL (WebFinger); nil without
	// federation, when remote follows are refused.
	remote func(ctx context.Context, handle string) (string, error)
}

// SetRemoteResolver enables following remote actors: resolve turns "@user@host" into an actor
// URL. The follow is then stored like a local one, with its event, and the worker sends it.
func (s *Service) SetRemoteResolver(resolve func(ctx context.Context, handle string) (string, error)) {
	s.remote = resolve
}

// NewService builds the service; baseURL is the instance's public URL, whose host makes a
// handle local and whose /users/{id} URLs are local actors.
func NewService(store Store, baseURL string) (*Service, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || u.Host == "" {
		return nil, errors.New("social: base URL must be an absolute URL")
	}
	return &Service{store: store, baseURL: u}, nil
}

// ActorURL is the actor URL of a local user: {BASE_URL}/users/{id}.
func (s *Service) ActorURL(id uuid.UUID) string { return s.baseURL.String() + "/users/" + id.String() }

// Handle is the handle of a local user: @username@host.
func (s *Service) Handle(username string) string { return "@" + username + "@" + s.baseURL.Host }

// Follow asks to follow the user a handle names: "alice", "@alice", "alice@host" or "@alice@host"
// with this instance's host, or a local actor URL.
func (s *Service) Follow(ctx context.Context, me uuid.UUID, handle string) error {
	target, err := s.resolveHandle(ctx, handle)
	if err != nil {
		return err
	}
	if id, _ := target.UserID(); id == me {
		return domain.Invalid("Cannot follow yourself")
	}
	return s.store.Follow(ctx, me, target)
}

// resolveHandle turns a handle into a local identity, or says a remote one needs federation.
func (s *Service) resolveHandle(ctx context.Context, handle string) (domain.SocialIdentity, error) {
	h := strings.TrimSpace(handle)
	if strings.HasPrefix(h, "http://") || strings.HasPrefix(h, "https://") || strings.HasPrefix(h, "local:") {
		id, err := s.ParseActor(h)
		if err != nil {
			return domain.SocialIdentity{}, err
		}
		if _, ok := id.UserID(); !ok {
			if s.remote != nil {
				return id, nil
			}
			return domain.SocialIdentity{}, errRemote
		}
		return id, s.exists(ctx, id)
	}
	name, host, hasHost := strings.Cut(strings.TrimPrefix(h, "@"), "@")
	if name == "" {
		return domain.SocialIdentity{}, domain.Invalid("handle %q must be user, @user or @user@host", handle)
	}
	if hasHost && !strings.EqualFold(host, s.baseURL.Host) {
		if s.remote == nil {
			return domain.SocialIdentity{}, errRemote
		}
		actorURL, err := s.remote(ctx, h)
		if err != nil {
			return domain.SocialIdentity{}, err
		}
		return domain.RemoteIdentity(actorURL), nil
	}
	u, err := s.store.UserByUsername(ctx, name)
	if errors.Is(err, domain.ErrNotFound) {
		return domain.SocialIdentity{}, domain.NotFound("Entity not found: user %q", name)
	}
	if err != nil {
		return domain.SocialIdentity{}, err
	}
	return domain.LocalIdentity(u.ID), nil
}

var errRemote = domain.Errorf(domain.KindUnsupported, "following remote actors needs federation, which this server does not run yet")

func (s *Service) exists(ctx context.Context, id domain.SocialIdentity) error {
	uid, _ := id.UserID()
	_, err := s.store.UserByID(ctx, uid)
	return err
}

// ParseActor reads the actor_url of a social request: a local actor URL ({BASE_URL}/users/{id}),
// the "local:{id}" form older clients send back, or a remote actor's http(s) URL.
func (s *Service) ParseActor(actorURL string) (domain.SocialIdentity, error) {
	raw := strings.TrimSpace(actorURL)
	if rest, ok := strings.CutPrefix(raw, "local:"); ok {
		id, err := uuid.Parse(rest)
		if err != nil {
			return domain.SocialIdentity{}, domain.Invalid("actor_url %q: not a local actor", actorURL)
		}
		return domain.LocalIdentity(id), nil
	}
	if rest, ok := strings.CutPrefix(raw, s.baseURL.String()+"/users/"); ok {
		id, err := uuid.Parse(rest)
		if err != nil {
			return domain.SocialIdentity{}, domain.Invalid("actor_url %q: not a local actor", actorURL)
		}
		return domain.LocalIdentity(id), nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return domain.SocialIdentity{}, domain.Invalid("actor_url %q must be an actor URL", actorURL)
	}
	return domain.RemoteIdentity(raw), nil
}

// act parses actorURL and runs a store write on it, refusing the caller themself.
func (s *Service) act(ctx context.Context, me uuid.UUID, actorURL string,
	write func(context.Context, uuid.UUID, domain.SocialIdentity) error) error {
	id, err := s.ParseActor(actorURL)
	if err != nil {
		return err
	}
	if uid, ok := id.UserID(); ok && uid == me {
		return domain.Invalid("actor_url is yourself")
	}
	return write(ctx, me, id)
}

// Unfollow stops following an actor.
func (s *Service) Unfollow(ctx context.Context, me uuid.UUID, actorURL string) error {
	return s.act(ctx, me, actorURL, s.store.Unfollow)
}

// Accept accepts a pending follow request made to me.
func (s *Service) Accept(ctx context.Context, me uuid.UUID, actorURL string) error {
	return s.act(ctx, me, actorURL, s.store.AcceptFollower)
}

// Reject refuses a pending follow request made to me.
func (s *Service) Reject(ctx context.Context, me uuid.UUID, actorURL string) error {
	return s.act(ctx, me, actorURL, s.store.RejectFollower)
}

// RemoveFollower ends an accepted follow of me.
func (s *Service) RemoveFollower(ctx context.Context, me uuid.UUID, actorURL string) error {
	return s.act(ctx, me, actorURL, s.store.RemoveFollower)
}

// Block blocks an actor.
func (s *Service) Block(ctx context.Context, me uuid.UUID, actorURL string) error {
	return s.act(ctx, me, actorURL, s.store.Block)
}

// Unblock lifts a block.
func (s *Service) Unblock(ctx context.Context, me uuid.UUID, actorURL string) error {
	return s.act(ctx, me, actorURL, s.store.Unblock)
}

// Following lists whom a user follows (accepted follows).
func (s *Service) Following(ctx context.Context, user uuid.UUID) ([]domain.Actor, error) {
	return s.store.Following(ctx, user)
}

// Followers lists a user's accepted followers.
func (s *Service) Followers(ctx context.Context, user uuid.UUID) ([]domain.Actor, error) {
	return s.store.Followers(ctx, user, false)
}

// Pending lists the follow requests waiting for my answer.
func (s *Service) Pending(ctx context.Context, me uuid.UUID) ([]domain.Actor, error) {
	return s.store.Followers(ctx, me, true)
}

// Blocked lists whom I blocked.
func (s *Service) Blocked(ctx context.Context, me uuid.UUID) ([]domain.Actor, error) {
	return s.store.Blocked(ctx, me)
}
