package activitypub

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Store is what federation reads and writes; the SQLite store implements it. Each write commits
// its events (and deliveries) in the same transaction.
type Store interface {
	UserByID(ctx context.Context, id uuid.UUID) (domain.User, error)
	UserByUsername(ctx context.Context, username string) (domain.User, error)
	Settings(ctx context.Context, user uuid.UUID) (domain.FederationSettings, error)
	ActorKey(ctx context.Context, owner uuid.UUID) (privatePEM, publicPEM string, err error)

	RemoteActor(ctx context.Context, url string) (domain.RemoteActor, error)
	RemoteActorByKeyID(ctx context.Context, keyID string) (domain.RemoteActor, error)
	SaveRemoteActor(ctx context.Context, a domain.RemoteActor) error
	DomainBlocked(ctx context.Context, host string) (bool, error)
	BlockedDomains(ctx context.Context) ([]string, error)
	HasBlocked(ctx context.Context, user uuid.UUID, actorURL string) (bool, error)

	ReceiveActivity(ctx context.Context, e domain.ActivityReceived) (bool, error)
	Publish(ctx context.Context, p domain.Publication) error
	Relation(ctx context.Context, typ, actor, object string) (string, error)
	RelationByID(ctx context.Context, activityID string) (domain.Relation, error)
	PublishedActivity(ctx context.Context, id string) ([]byte, error)
	LatestActivity(ctx context.Context, objectID string) ([]byte, error)
	ActivityIDs(ctx context.Context, typ string, objectIDs []string) (map[string]string, error)
	FollowerInboxes(ctx context.Context, user uuid.UUID) ([]string, error)
	FollowStatus(ctx context.Context, follower, target domain.SocialIdentity) (string, error)

	FederatedReview(ctx context.Context, id uuid.UUID) (domain.Review, domain.Movie, error)
	LocalReviewsOfMovie(ctx context.Context, movie uuid.UUID) ([]uuid.UUID, error)
	OutboxReviews(ctx context.Context, user uuid.UUID, offset, limit int) ([]domain.Review, []domain.Movie, int, error)
	FollowCollection(ctx context.Context, user uuid.UUID, followers bool, offset, limit int) ([]domain.SocialIdentity, int, error)
	NodeStats(ctx context.Context) (users, reviews int, err error)

	AddRemoteFollower(ctx context.Context, user uuid.UUID, actorURL, followID, userActorURL string) error
	RemoveRemoteFollower(ctx context.Context, user uuid.UUID, actorURL string) error
	FollowAnswered(ctx context.Context, user uuid.UUID, actorURL string, accepted bool) error
	SaveRemoteReview(ctx context.Context, r domain.RemoteReview) error
	DeleteRemoteReviews(ctx context.Context, actorURL, apID string) error
}

// Config configures Federation; zero fields take defaults.
type Config struct {
	// BaseURL is the instance's public origin; actors are {BaseURL}/users/{uuid}.
	BaseURL string
	Client  *Client
	Logger  *slog.Logger
	// Now is the clock (tests move it to replay old requests).
	Now func() time.Time
	// MaxClockSkew is how far an inbound Date may be from Now (MaxClockSkewDefault).
	MaxClockSkew time.Duration
	// ActorTTL is how long a cached remote actor is trusted before it is fetched again.
	ActorTTL time.Duration
	// AllowRegistration is reported by NodeInfo.
	AllowRegistration bool
}

// ActorTTLDefault is how long a cached remote actor document is used.
const ActorTTLDefault = 24 * time.Hour

// Federation is the ActivityPub side of the instance: its HTTP routes (server) and its event
// handlers (worker) share it.
type Federation struct {
	store    Store
	client   *Client
	urls     URLs
	host     string
	log      *slog.Logger
	now      func() time.Time
	skew     time.Duration
	actorTTL time.Duration
	openReg  bool
}

// New builds the federation over store.
func New(store Store, cfg Config) (*Federation, error) {
	base := strings.TrimRight(cfg.BaseURL, "/")
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("activitypub: base URL %q must be an absolute http(s) URL", cfg.BaseURL)
	}
	f := &Federation{
		store: store, client: cfg.Client, urls: URLs{Base: base}, host: u.Host,
		log: cmp.Or(cfg.Logger, slog.Default()), now: cfg.Now,
		skew: cmp.Or(cfg.MaxClockSkew, MaxClockSkewDefault), actorTTL: cmp.Or(cfg.ActorTTL, ActorTTLDefault),
		openReg: cfg.AllowRegistration,
	}
	if f.client == nil {
		f.client = NewClient(ClientConfig{})
	}
	if f.now == nil {
		f.now = time.Now
	}
	return f, nil
}

// URLs returns the URL builder of this instance.
func (f *Federation) URLs() URLs { return f.urls }

// signer returns the signer of a local actor, making its key if it has none yet.
func (f *Federation) signer(ctx context.Context, owner uuid.UUID) (*Signer, error) {
	priv, _, err := f.store.ActorKey(ctx, owner)
	if err != nil {
		return nil, err
	}
	key, err := ParsePrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("actor %s: %w", owner, err)
	}
	return &Signer{KeyID: f.urls.KeyID(owner), Key: key}, nil
}

// localUser returns the local user an actor URL of ours names.
func (f *Federation) localUser(actorURL string) (uuid.UUID, bool) {
	rest, ok := strings.CutPrefix(actorURL, f.urls.Base+"/users/")
	if !ok {
		return uuid.Nil, false
	}
	id, err := uuid.Parse(rest)
	return id, err == nil
}

// hostOf is the host of a URL, lowercased ("" for a malformed one).
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// refuseHost reports, as a permanent error, that a remote host is blocked.
func (f *Federation) refuseHost(ctx context.Context, raw string) error {
	host := hostOf(raw)
	if host == "" {
		return domain.Permanent(fmt.Errorf("%q has no host", raw))
	}
	blocked, err := f.store.DomainBlocked(ctx, host)
	if err != nil {
		return err
	}
	if blocked {
		return domain.Permanent(fmt.Errorf("%w: %s", ErrDomainBlocked, host))
	}
	return nil
}

// blockedIn reports whether host is one of domains or under one of them.
func blockedIn(host string, domains []string) bool {
	for _, d := range domains {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

// ErrDomainBlocked marks traffic refused because its instance is blocked.
var ErrDomainBlocked = errors.New("domain blocked")

// Actor returns a remote actor, from the cache while fresh, else fetched (signed by the instance
// actor) and cached. refresh forces a fetch (a signature that fails with a cached key may be
// a rotated key).
func (f *Federation) Actor(ctx context.Context, actorURL string, refresh bool) (domain.RemoteActor, error) {
	if err := f.refuseHost(ctx, actorURL); err != nil {
		return domain.RemoteActor{}, err
	}
	var stale *domain.RemoteActor
	if !refresh {
		a, err := f.store.RemoteActor(ctx, actorURL)
		if err == nil && f.now().Sub(a.FetchedAt) < f.actorTTL {
			return a, nil
		}
		if err == nil {
			stale = &a
		} else if !errors.Is(err, domain.ErrNotFound) {
			return domain.RemoteActor{}, err
		}
	}
	signer, err := f.signer(ctx, InstanceActorID)
	if err != nil {
		return domain.RemoteActor{}, err
	}
	body, err := f.client.Get(ctx, actorURL, ContentType+`, application/ld+json; profile="https://www.w3.org/ns/activitystreams"`, signer)
	if err != nil && stale != nil && !domain.IsPermanent(err) {
		// The server is unreachable for now: its last known inbox beats no delivery.
		f.log.WarnContext(ctx, "remote actor refresh failed; using the cached document", "actor", actorURL, "error", err)
		return *stale, nil
	}
	if err != nil {
		return domain.RemoteActor{}, err
	}
	a, err := parseActor(body)
	if err != nil {
		return domain.RemoteActor{}, domain.Permanent(fmt.Errorf("actor %s: %w", actorURL, err))
	}
	if a.URL != actorURL {
		return domain.RemoteActor{}, domain.Permanent(fmt.Errorf("actor %s: document id is %s", actorURL, a.URL))
	}
	a.FetchedAt = f.now()
	if err := f.store.SaveRemoteActor(ctx, a); err != nil {
		return domain.RemoteActor{}, err
	}
	return a, nil
}

// parseActor reads an actor document: its id, inboxes, outbox and public key, which must be
// owned by the actor and on the actor's host.
func parseActor(body []byte) (domain.RemoteActor, error) {
	o, err := decodeObject(body)
	if err != nil {
		return domain.RemoteActor{}, err
	}
	a := domain.RemoteActor{URL: str(o, "id"), Inbox: str(o, "inbox"), Outbox: str(o, "outbox")}
	if ep := obj(o, "endpoints"); ep != nil {
		a.SharedInbox = str(ep, "sharedInbox")
	}
	if name := str(o, "preferredUsername"); name != "" {
		a.Handle = "@" + name + "@" + hostOf(a.URL)
	}
	a.DisplayName = str(o, "name")
	key := obj(o, "publicKey")
	if key == nil {
		if keys, ok := o["publicKey"].([]any); ok && len(keys) > 0 {
			key, _ = keys[0].(map[string]any)
		}
	}
	if a.URL == "" || a.Inbox == "" || key == nil {
		return a, errors.New("needs id, inbox and publicKey")
	}
	a.KeyID, a.PublicKeyPEM = str(key, "id"), str(key, "publicKeyPem")
	if owner := str(key, "owner"); owner != "" && owner != a.URL {
		return a, fmt.Errorf("key %s is owned by %s", a.KeyID, owner)
	}
	for _, u := range []string{a.Inbox, a.SharedInbox, a.Outbox, a.KeyID} {
		if u != "" && hostOf(u) != hostOf(a.URL) {
			return a, fmt.Errorf("%s is not on the actor's host", u)
		}
	}
	if _, err := ParsePublicKey(a.PublicKeyPEM); err != nil {
		return a, err
	}
	return a, nil
}

// ResolveHandle finds the actor URL of "@user@host" (or "user@host") with WebFinger, and caches
// the actor. It is what a local user's remote follow starts with.
func (f *Federation) ResolveHandle(ctx context.Context, handle string) (string, error) {
	name, host, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(handle), "@"), "@")
	if !ok || name == "" || host == "" || strings.ContainsAny(host, "/?#@ ") {
		return "", domain.Invalid("handle %q must be @user@host", handle)
	}
	// WebFinger is https; an instance that is itself served over plain http (development, the
	// tests) looks its peers up over http too.
	scheme := "https"
	if strings.HasPrefix(f.urls.Base, "http://") {
		scheme = "http"
	}
	wf := scheme + "://" + host + "/.well-known/webfinger?resource=" + url.QueryEscape("acct:"+name+"@"+host)
	if err := f.refuseHost(ctx, wf); err != nil {
		return "", domain.Forbidden("the instance %s is blocked", host)
	}
	body, err := f.client.Get(ctx, wf, "application/jrd+json, application/json", nil)
	if err != nil {
		return "", domain.NotFound("Entity not found: %s (%v)", handle, err)
	}
	var jrd struct {
		Links []struct {
			Rel  string `json:"rel"`
			Type string `json:"type"`
			Href string `json:"href"`
		} `json:"links"`
	}
	if err := json.Unmarshal(body, &jrd); err != nil {
		return "", domain.NotFound("Entity not found: %s (bad WebFinger answer)", handle)
	}
	for _, l := range jrd.Links {
		if l.Rel == "self" && (l.Type == ContentType || strings.HasPrefix(l.Type, "application/ld+json")) && l.Href != "" {
			if _, err := f.Actor(ctx, l.Href, true); err != nil {
				return "", domain.NotFound("Entity not found: %s (%v)", handle, err)
			}
			return l.Href, nil
		}
	}
	return "", domain.NotFound("Entity not found: %s has no ActivityPub actor", handle)
}
