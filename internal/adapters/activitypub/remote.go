package activitypub

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/federation"
)

// The use case's Remote: other servers, reached through the signed, SSRF-guarded client.

// acceptAP is the Accept header of our document fetches.
const acceptAP = ContentType + `, application/ld+json; profile="https://www.w3.org/ns/activitystreams"`

// Actor returns a remote actor, from the cache while fresh, else fetched (signed by the instance
// actor) and cached. refresh forces a fetch (a signature that fails with a cached key may be
// a rotated key).
func (f *Federation) Actor(ctx context.Context, actorURL string, refresh bool) (domain.RemoteActor, error) {
	if err := f.fed.RefuseHost(ctx, actorURL); err != nil {
		return domain.RemoteActor{}, err
	}
	if !refresh {
		a, err := f.keys.RemoteActor(ctx, actorURL)
		if err == nil && f.now().Sub(a.FetchedAt) < f.actorTTL {
			return a, nil
		}
		if err != nil && !errors.Is(err, domain.ErrNotFound) {
			return domain.RemoteActor{}, err
		}
		if err == nil {
			fresh, ferr := f.fetchActor(ctx, actorURL, "")
			if ferr != nil && !domain.IsPermanent(ferr) {
				// The server is unreachable for now: its last known inbox beats no delivery.
				f.log.WarnContext(ctx, "remote actor refresh failed; using the cached document", "actor", actorURL, "error", ferr)
				return a, nil
			}
			return fresh, ferr
		}
	}
	return f.fetchActor(ctx, actorURL, "")
}

// fetchActor fetches an actor document (a signed GET by the instance actor), reads it with the
// key keyID when it has several ("" for its first) and caches it.
func (f *Federation) fetchActor(ctx context.Context, actorURL, keyID string) (domain.RemoteActor, error) {
	if err := f.fed.RefuseHost(ctx, actorURL); err != nil {
		return domain.RemoteActor{}, err
	}
	body, err := f.signedGet(ctx, actorURL)
	if err != nil {
		return domain.RemoteActor{}, err
	}
	doc, err := decodeObject(body)
	if err != nil {
		return domain.RemoteActor{}, domain.Permanent(fmt.Errorf("actor %s: %w", actorURL, err))
	}
	a, err := parseActor(doc, keyID)
	if err != nil {
		return domain.RemoteActor{}, domain.Permanent(fmt.Errorf("actor %s: %w", actorURL, err))
	}
	if a.URL != actorURL {
		return domain.RemoteActor{}, domain.Permanent(fmt.Errorf("actor %s: document id is %s", actorURL, a.URL))
	}
	return f.saveActor(ctx, a)
}

// saveActor caches a fetched actor, stamped now.
func (f *Federation) saveActor(ctx context.Context, a domain.RemoteActor) (domain.RemoteActor, error) {
	a.FetchedAt = f.now()
	if err := f.keys.SaveRemoteActor(ctx, a); err != nil {
		return domain.RemoteActor{}, err
	}
	return a, nil
}

// signedGet fetches an ActivityPub document signed by the instance actor: servers in secure
// mode (authorized fetch) refuse unsigned GETs of actors, keys and collections.
func (f *Federation) signedGet(ctx context.Context, url string) ([]byte, error) {
	signer, err := f.signer(ctx, federation.InstanceActorID)
	if err != nil {
		return nil, err
	}
	return f.client.Get(ctx, url, acceptAP, signer)
}

// parseActor reads an actor document: its id, inboxes, outbox and public key (the one with id
// keyID when it lists several, else the first), which must be owned by the actor, and every URL
// on the actor's host.
func parseActor(o Object, keyID string) (domain.RemoteActor, error) {
	a := domain.RemoteActor{URL: str(o, "id"), Inbox: str(o, "inbox"), Outbox: str(o, "outbox")}
	if ep := obj(o, "endpoints"); ep != nil {
		a.SharedInbox = str(ep, "sharedInbox")
	}
	if name := str(o, "preferredUsername"); name != "" {
		a.Handle = "@" + name + "@" + federation.HostOf(a.URL)
	}
	a.DisplayName = federation.PlainText(str(o, "name"))
	switch aka := o["alsoKnownAs"].(type) {
	case string:
		a.AlsoKnownAs = []string{aka}
	case []any:
		for _, v := range aka {
			if s, ok := v.(string); ok {
				a.AlsoKnownAs = append(a.AlsoKnownAs, s)
			}
		}
	}
	var key Object
	switch keys := o["publicKey"].(type) {
	case map[string]any:
		key = keys
	case []any:
		for _, k := range keys {
			if k, _ := k.(map[string]any); k != nil && (key == nil || str(k, "id") == keyID) {
				key = k
			}
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
		if u != "" && federation.HostOf(u) != federation.HostOf(a.URL) {
			return a, fmt.Errorf("%s is not on the actor's host", u)
		}
	}
	if _, err := ParsePublicKey(a.PublicKeyPEM); err != nil {
		return a, err
	}
	return a, nil
}

// Deliver POSTs an encoded activity to an inbox, signed by the local actor signer (the use
// case's Remote).
func (f *Federation) Deliver(ctx context.Context, inbox string, activity []byte, signer uuid.UUID) error {
	s, err := f.signer(ctx, signer)
	if err != nil {
		return err
	}
	return f.client.Post(ctx, inbox, activity, *s)
}

// RefuseHost is an error wrapping federation.ErrDomainBlocked when the host of raw is on a
// blocked domain (the delivery lane's LaneConfig.Refuse).
func (f *Federation) RefuseHost(ctx context.Context, raw string) error {
	return f.fed.RefuseHost(ctx, raw)
}

// OutboxPage fetches and reads one document of a remote outbox, signed by the local actor
// signer (the use case's Remote). A document that is not a JSON object is a permanent error.
func (f *Federation) OutboxPage(ctx context.Context, pageURL string, signer uuid.UUID) (federation.OutboxPage, error) {
	s, err := f.signer(ctx, signer)
	if err != nil {
		return federation.OutboxPage{}, err
	}
	body, err := f.client.Get(ctx, pageURL, acceptAP, s)
	if err != nil {
		return federation.OutboxPage{}, err
	}
	doc, err := decodeObject(body)
	if err != nil {
		return federation.OutboxPage{}, domain.Permanent(err)
	}
	return outboxPageOf(doc), nil
}
