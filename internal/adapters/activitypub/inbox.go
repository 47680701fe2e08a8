package activitypub

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/federation"
)

// inbox accepts a signed activity: it verifies the signature and that its key belongs to the
// activity's actor and refuses blocked instances; the use case decides the rest (Receive) and
// the activity is answered 202, stored or not.
func (f *Federation) inbox(w http.ResponseWriter, r *http.Request) error {
	var recipient *uuid.UUID
	if r.PathValue("id") != "" {
		u, err := f.pathUser(r)
		if err != nil {
			return err
		}
		recipient = &u.ID
	}
	body, err := readBody(r)
	if err != nil {
		return err
	}
	signer, err := f.verify(r, body)
	if err != nil {
		f.log.WarnContext(r.Context(), "inbox request refused", "error", err, "path", r.URL.Path)
		switch {
		case errors.Is(err, federation.ErrDomainBlocked):
			return domain.Forbidden("instance blocked")
		case errors.Is(err, ErrSignature):
			return domain.Errorf(domain.KindUnauthorized, "%s", err.Error())
		default:
			return domain.Errorf(domain.KindUnauthorized, "signature could not be verified")
		}
	}
	activity, err := decodeObject(body)
	if err != nil {
		return badRequest("body is not a JSON object")
	}
	if err := f.fed.Receive(r.Context(), signer.URL, recipient, inboundOf(activity), body); err != nil {
		return err
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}

// verify checks a request's HTTP signature and returns the actor whose key made it. The key is
// looked up in the cache first; when the signature fails with a cached key the actor is fetched
// again once (the key may have been rotated).
func (f *Federation) verify(r *http.Request, body []byte) (domain.RemoteActor, error) {
	ctx := r.Context()
	header := r.Header.Get("Signature")
	if header == "" {
		if auth := r.Header.Get("Authorization"); strings.HasPrefix(auth, "Signature ") {
			header = auth
		}
	}
	if header == "" {
		return domain.RemoteActor{}, fmt.Errorf("%w: no Signature header", ErrSignature)
	}
	p, err := ParseSignature(header)
	if err != nil {
		return domain.RemoteActor{}, fmt.Errorf("%w: %v", ErrSignature, err)
	}
	if err := f.fed.RefuseHost(ctx, p.KeyID); err != nil {
		return domain.RemoteActor{}, err
	}
	actor, cached, err := f.keyOwner(ctx, p.KeyID)
	if err != nil {
		return domain.RemoteActor{}, err
	}
	err = f.checkSignature(r, body, p, actor)
	if err != nil && cached {
		if actor, err = f.Actor(ctx, actor.URL, true); err != nil {
			return domain.RemoteActor{}, err
		}
		err = f.checkSignature(r, body, p, actor)
	}
	return actor, err
}

func (f *Federation) checkSignature(r *http.Request, body []byte, p SignatureParams, a domain.RemoteActor) error {
	if a.KeyID != p.KeyID {
		return fmt.Errorf("%w: key %s is not %s's key", ErrSignature, p.KeyID, a.URL)
	}
	key, err := ParsePublicKey(a.PublicKeyPEM)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrSignature, err)
	}
	return VerifyRequest(r, body, p, key, f.now(), f.skew)
}

// keyOwner returns the actor a key id belongs to: cached, or fetched from the key id without its
// fragment (the actor document embeds its key). cached tells which.
func (f *Federation) keyOwner(ctx context.Context, keyID string) (domain.RemoteActor, bool, error) {
	a, err := f.keys.RemoteActorByKeyID(ctx, keyID)
	if err == nil {
		return a, true, nil
	}
	if !errors.Is(err, domain.ErrNotFound) {
		return a, false, err
	}
	actorURL, _, _ := strings.Cut(keyID, "#")
	a, err = f.Actor(ctx, actorURL, true)
	if err != nil {
		return a, false, fmt.Errorf("%w: fetch key owner: %v", ErrSignature, err)
	}
	return a, false, nil
}
