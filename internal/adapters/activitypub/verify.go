package activitypub

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/endpoint"
	"moviesdiary/internal/usecase/federation"
)

// Answers to a refused signed request: short and fixed, so they tell the sender nothing about
// our network (a fetch error names addresses and ports: a port-scan oracle). The log has why.
const (
	msgUnverified    = "request signature could not be verified"
	msgBlocked       = "instance blocked"
	msgSlowDown      = "too many requests from this instance"
	keyRefetchMinAge = 30 * time.Second
)

// errKeyUnavailable marks a signature whose key could not be resolved (the key id, or its
// owner, could not be fetched or read), as opposed to one that does not verify.
var errKeyUnavailable = errors.New("key unavailable")

// goneActorDelete reports whether a refused request is the Delete of an actor by itself whose
// key cannot be fetched any more: a deleted account's server sends it to every server it knew,
// and the key went with the account. We know nothing of the actor (its key is not cached), so
// there is nothing to delete: it is answered 202 so the sender stops retrying, and not stored.
func goneActorDelete(err error, body []byte) bool {
	if !errors.Is(err, errKeyUnavailable) {
		return false
	}
	a, derr := decodeObject(body)
	return derr == nil && str(a, "type") == "Delete" && str(a, "actor") != "" && str(a, "object") == str(a, "actor")
}

// refused logs why a signed request was refused and answers it with a fixed message: 403 for a
// blocked instance, 429 for one over its rate, 401 for a signature that is not verified. A
// failure of ours (the key cache unreadable) is returned as it is, a 500 with the generic
// message, so the sender retries: most servers drop an activity answered 4xx.
func (f *Federation) refused(r *http.Request, err error) error {
	switch {
	case errors.Is(err, federation.ErrDomainBlocked):
		f.log.InfoContext(r.Context(), "signed request refused: instance blocked", "error", err, "path", r.URL.Path)
		return domain.Forbidden(msgBlocked)
	case errors.Is(err, errRateLimited):
		f.log.WarnContext(r.Context(), "signed request refused: rate limited", "error", err, "path", r.URL.Path)
		return endpoint.Fail(http.StatusTooManyRequests, msgSlowDown)
	case errors.Is(err, ErrSignature):
		f.log.WarnContext(r.Context(), "signed request refused", "error", err, "method", r.Method, "path", r.URL.Path)
		return domain.Errorf(domain.KindUnauthorized, msgUnverified)
	}
	return err
}

// signatureOf reads a request's Signature header, or an Authorization: Signature value.
func signatureOf(r *http.Request) (SignatureParams, error) {
	header := r.Header.Get("Signature")
	if header == "" {
		if auth := r.Header.Get("Authorization"); strings.HasPrefix(auth, "Signature ") {
			header = auth
		}
	}
	if header == "" {
		return SignatureParams{}, fmt.Errorf("%w: no Signature header", ErrSignature)
	}
	p, err := ParseSignature(header)
	if err != nil {
		return p, fmt.Errorf("%w: %v", ErrSignature, err)
	}
	return p, nil
}

// verify checks a request's HTTP signature and returns the actor whose key made it. Everything
// the request itself proves (covered headers, Date, Digest), the sender's domain block and its
// rate are checked before the key is looked up, so only a request that could be genuine makes
// us fetch anything. The key comes from the cache, or is resolved as Mastodon does
// (resolveKey); when the signature fails with a cached key, the key is resolved again once
// (a rotated key), unless it was fetched moments ago.
func (f *Federation) verify(r *http.Request, body []byte) (domain.RemoteActor, error) {
	ctx := r.Context()
	p, err := signatureOf(r)
	if err != nil {
		return domain.RemoteActor{}, err
	}
	if err := CheckHeaders(r, body, p, f.now(), f.skew); err != nil {
		return domain.RemoteActor{}, err
	}
	if err := f.fed.RefuseHost(ctx, p.KeyID); err != nil {
		if domain.IsPermanent(err) && !errors.Is(err, federation.ErrDomainBlocked) {
			err = fmt.Errorf("%w: %w", ErrSignature, err) // a key id without a host
		}
		return domain.RemoteActor{}, err
	}
	if !f.limit.allow(limiterKey(p.KeyID)) {
		return domain.RemoteActor{}, fmt.Errorf("%w: %s", errRateLimited, limiterKey(p.KeyID))
	}
	actor, err := f.keys.RemoteActorByKeyID(ctx, p.KeyID)
	cached := err == nil
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		return domain.RemoteActor{}, err
	}
	if !cached {
		if actor, err = f.resolveKey(ctx, p.KeyID); err != nil {
			return domain.RemoteActor{}, fmt.Errorf("%w: %w: %s: %w", ErrSignature, errKeyUnavailable, p.KeyID, err)
		}
	}
	err = f.checkSignature(r, p, actor)
	if err != nil && cached && f.now().Sub(actor.FetchedAt) > keyRefetchMinAge {
		if actor, err = f.resolveKey(ctx, p.KeyID); err != nil {
			return domain.RemoteActor{}, fmt.Errorf("%w: resolve key %s again: %w", ErrSignature, p.KeyID, err)
		}
		err = f.checkSignature(r, p, actor)
	}
	return actor, err
}

func (f *Federation) checkSignature(r *http.Request, p SignatureParams, a domain.RemoteActor) error {
	if a.KeyID != p.KeyID {
		return fmt.Errorf("%w: key %s is not %s's key", ErrSignature, p.KeyID, a.URL)
	}
	key, err := ParsePublicKey(a.PublicKeyPEM)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrSignature, err)
	}
	return VerifySignature(r, p, key)
}

// resolveKey finds the actor a key id belongs to, as Mastodon does: it dereferences the key id
// (a signed GET, without the fragment). When that document is an actor whose key is the key id
// (Mastodon, Akkoma, Misskey: {actor}#main-key), that actor is it. Otherwise the document is a
// key (a separate Key object, or GoToSocial's {actor}/main-key stub with no inbox) and its owner
// (owner, or publicKey.owner) must be on the key's origin (scheme, host and port); the owner's actor document is then
// fetched and its key must be that key id. The actor is cached with its key.
func (f *Federation) resolveKey(ctx context.Context, keyID string) (domain.RemoteActor, error) {
	docURL, _, _ := strings.Cut(keyID, "#")
	body, err := f.signedGet(ctx, docURL)
	if err != nil {
		return domain.RemoteActor{}, err
	}
	doc, err := decodeObject(body)
	if err != nil {
		return domain.RemoteActor{}, domain.Permanent(fmt.Errorf("key %s: %w", keyID, err))
	}
	if str(doc, "inbox") != "" && str(doc, "id") == docURL {
		a, err := parseActor(doc, keyID)
		if err == nil && a.KeyID == keyID {
			return f.saveActor(ctx, a)
		}
	}
	owner := str(doc, "owner")
	if key := obj(doc, "publicKey"); owner == "" && key != nil {
		owner = str(key, "owner")
	}
	if owner == "" || origin(owner) != origin(keyID) {
		return domain.RemoteActor{}, domain.Permanent(fmt.Errorf("key %s: no owner on its host (%q)", keyID, owner))
	}
	a, err := f.fetchActor(ctx, owner, keyID)
	if err != nil {
		return domain.RemoteActor{}, err
	}
	if a.KeyID != keyID {
		return domain.RemoteActor{}, domain.Permanent(fmt.Errorf("key %s: its owner %s has key %s", keyID, owner, a.KeyID))
	}
	return a, nil
}

// origin is a URL's scheme://host:port, lowercased ("" for a malformed one).
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}
