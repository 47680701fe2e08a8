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

// Actor returns a remote actor, from the cache while fresh, else fetched (signed by the instance
// actor) and cached. refresh forces a fetch (a signature that fails with a cached key may be
// a rotated key).
func (f *Federation) Actor(ctx context.Context, actorURL string, refresh bool) (domain.RemoteActor, error) {
	if err := f.fed.RefuseHost(ctx, actorURL); err != nil {
		return domain.RemoteActor{}, err
	}
	var stale *domain.RemoteActor
	if !refresh {
		a, err := f.keys.RemoteActor(ctx, actorURL)
		if err == nil && f.now().Sub(a.FetchedAt) < f.actorTTL {
			return a, nil
		}
		if err == nil {
			stale = &a
		} else if !errors.Is(err, domain.ErrNotFound) {
			return domain.RemoteActor{}, err
		}
	}
	signer, err := f.signer(ctx, federation.InstanceActorID)
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
	if err := f.keys.SaveRemoteActor(ctx, a); err != nil {
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
		a.Handle = "@" + name + "@" + federation.HostOf(a.URL)
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

// OutboxPage fetches and reads one document of a remote outbox, signed by the local actor
// signer (the use case's Remote). A document that is not a JSON object is a permanent error.
func (f *Federation) OutboxPage(ctx context.Context, pageURL string, signer uuid.UUID) (federation.OutboxPage, error) {
	s, err := f.signer(ctx, signer)
	if err != nil {
		return federation.OutboxPage{}, err
	}
	body, err := f.client.Get(ctx, pageURL, ContentType, s)
	if err != nil {
		return federation.OutboxPage{}, err
	}
	doc, err := decodeObject(body)
	if err != nil {
		return federation.OutboxPage{}, domain.Permanent(err)
	}
	return outboxPageOf(doc), nil
}
