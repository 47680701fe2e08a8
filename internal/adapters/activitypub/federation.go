package activitypub

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/federation"
)

// Keys are the local actors' key pairs and the cache of remote actors (their documents and
// public keys): what the adapter itself keeps.
type Keys interface {
	// ActorKey returns a local actor's key pair, making it if the actor has none yet.
	ActorKey(ctx context.Context, owner uuid.UUID) (privatePEM, publicPEM string, err error)
	RemoteActor(ctx context.Context, url string) (domain.RemoteActor, error)
	RemoteActorByKeyID(ctx context.Context, keyID string) (domain.RemoteActor, error)
	SaveRemoteActor(ctx context.Context, a domain.RemoteActor) error
}

// Store is what the adapter is built over: the use case's store ports and the keys. The SQLite
// store implements it.
type Store interface {
	federation.Accounts
	federation.Blocks
	federation.Reviews
	federation.Goals
	federation.Follows
	federation.Publications
	federation.Inbox
	Keys
	// HostAlive tells the delivery lane that a remote host answers (an activity came from it):
	// deliveries waiting out its failures go now.
	HostAlive(ctx context.Context, host string, now time.Time) error
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
	// SecureMode (FEDERATION_SECURE_MODE) requires a valid HTTP signature on every GET of an
	// outbox, a collection, a review or an activity, as Mastodon's authorized fetch does. Actor
	// documents, WebFinger and NodeInfo stay public: a remote server verifying our signature
	// needs them.
	SecureMode bool
	// InboxRate and InboxBurst are the per-remote-host limit of signed requests (defaults
	// InboxRateDefault a second, bursts of InboxBurstDefault; a negative rate turns it off).
	InboxRate  float64
	InboxBurst int
	// Version is the software version NodeInfo reports (the build's; "unknown" when empty).
	Version string
	// Deliveries, when set (the worker), is where deliveries are handed to the delivery lane,
	// and Wake tells the lane of one; without it a delivery is sent by its handler.
	Deliveries federation.Deliveries
	Wake       func()
}

// ActorTTLDefault is how long a cached remote actor document is used.
const ActorTTLDefault = 24 * time.Hour

// Federation is the ActivityPub side of the instance: its HTTP routes (server) and its event
// handlers (worker) share it. It holds the federation use case and is its Remote and Encoder.
type Federation struct {
	fed   *federation.Service
	keys  Keys
	hosts interface {
		HostAlive(ctx context.Context, host string, now time.Time) error
	}
	client   *Client
	urls     URLs
	host     string
	log      *slog.Logger
	now      func() time.Time
	skew     time.Duration
	actorTTL time.Duration
	openReg  bool
	secure   bool
	limit    *hostLimiter
	version  string
	// browserPage answers a browser (no ActivityPub Accept) at an actor URL: the user's web
	// page; nil redirects to the web pages' /u/{id}.
	browserPage http.Handler
}

// SetBrowserPage makes h answer browsers at actor URLs (the web interface's user page, which
// reads the path's {id}). Call it before serving.
func (f *Federation) SetBrowserPage(h http.Handler) { f.browserPage = h }

var _ federation.Remote = (*Federation)(nil)

// New builds the federation over store.
func New(store Store, cfg Config) (*Federation, error) {
	base := strings.TrimRight(cfg.BaseURL, "/")
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("activitypub: base URL %q must be an absolute http(s) URL", cfg.BaseURL)
	}
	f := &Federation{
		keys: store, hosts: store, client: cfg.Client, urls: URLs{federation.URLs{Base: base}}, host: u.Host,
		log: cmp.Or(cfg.Logger, slog.Default()), now: cfg.Now,
		skew: cmp.Or(cfg.MaxClockSkew, MaxClockSkewDefault), actorTTL: cmp.Or(cfg.ActorTTL, ActorTTLDefault),
		openReg: cfg.AllowRegistration, secure: cfg.SecureMode, version: cfg.Version,
	}
	if f.client == nil {
		f.client = NewClient(ClientConfig{})
	}
	if f.now == nil {
		f.now = time.Now
	}
	f.limit = newHostLimiter(cmp.Or(cfg.InboxRate, InboxRateDefault), cmp.Or(cfg.InboxBurst, InboxBurstDefault), f.now)
	f.fed, err = federation.New(federation.Deps{
		Accounts: store, Blocks: store, Reviews: store, Goals: store, Follows: store, Publications: store, Inbox: store,
		Remote: f, Encode: f.encode, Deliveries: cfg.Deliveries, Wake: cfg.Wake,
	}, federation.Config{BaseURL: base, Logger: f.log, Now: f.now})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// URLs returns the URL builder of this instance.
func (f *Federation) URLs() URLs { return f.urls }

// signer returns the signer of a local actor, making its key if it has none yet.
func (f *Federation) signer(ctx context.Context, owner uuid.UUID) (*Signer, error) {
	priv, _, err := f.keys.ActorKey(ctx, owner)
	if err != nil {
		return nil, err
	}
	key, err := ParsePrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("actor %s: %w", owner, err)
	}
	return &Signer{KeyID: f.urls.KeyID(owner), Key: key}, nil
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
	if err := f.fed.RefuseHost(ctx, wf); err != nil {
		return "", domain.Forbidden("the instance %s is blocked", host)
	}
	notFound := func(why string, err error) error {
		f.log.InfoContext(ctx, "handle not resolved", "handle", handle, "reason", why, "error", err)
		return domain.NotFound("Entity not found: %s", handle)
	}
	body, err := f.client.Get(ctx, wf, "application/jrd+json, application/json", nil)
	if err != nil {
		return "", notFound("WebFinger failed", err)
	}
	var jrd struct {
		Links []struct {
			Rel  string `json:"rel"`
			Type string `json:"type"`
			Href string `json:"href"`
		} `json:"links"`
	}
	if err := json.Unmarshal(body, &jrd); err != nil {
		return "", notFound("bad WebFinger answer", err)
	}
	for _, l := range jrd.Links {
		if l.Rel == "self" && (l.Type == ContentType || strings.HasPrefix(l.Type, "application/ld+json")) && l.Href != "" {
			if _, err := f.Actor(ctx, l.Href, true); err != nil {
				return "", notFound("actor fetch failed", err)
			}
			return l.Href, nil
		}
	}
	return "", notFound("no ActivityPub actor in the WebFinger answer", nil)
}
