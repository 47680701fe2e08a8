package activitypub

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// inbox accepts a signed activity: it verifies the signature and that its key belongs to the
// activity's actor, refuses blocked instances and (on a user's inbox) actors the user blocked,
// stores the activity once by its id with the event that processes it, and answers 202. A
// repeated id is answered 202 and not stored again.
func (f *Federation) inbox(w http.ResponseWriter, r *http.Request) {
	var recipient *uuid.UUID
	if r.PathValue("id") != "" {
		u, ok := f.pathUser(w, r)
		if !ok {
			return
		}
		recipient = &u.ID
	}
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	signer, err := f.verify(r, body)
	if err != nil {
		f.log.WarnContext(r.Context(), "inbox request refused", "error", err, "path", r.URL.Path)
		switch {
		case errors.Is(err, ErrDomainBlocked):
			fail(w, http.StatusForbidden, "instance blocked")
		case errors.Is(err, ErrSignature):
			fail(w, http.StatusUnauthorized, err.Error())
		default:
			fail(w, http.StatusUnauthorized, "signature could not be verified")
		}
		return
	}
	activity, err := decodeObject(body)
	if err != nil {
		fail(w, http.StatusBadRequest, "body is not a JSON object")
		return
	}
	id, actor := str(activity, "id"), str(activity, "actor")
	switch {
	case id == "" || str(activity, "type") == "":
		fail(w, http.StatusBadRequest, "an activity needs an id and a type")
		return
	case actor != signer.URL:
		fail(w, http.StatusUnauthorized, fmt.Sprintf("signed by %s on behalf of %s", signer.URL, actor))
		return
	case hostOf(id) != hostOf(actor):
		fail(w, http.StatusBadRequest, "the activity id is not on its actor's host")
		return
	}
	if !handled[str(activity, "type")] {
		// Likes, Announces and the rest: accepted, as a peer expects, but not stored.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if recipient != nil {
		blocked, err := f.store.HasBlocked(r.Context(), *recipient, actor)
		if err != nil {
			f.failErr(w, r, err)
			return
		}
		if blocked {
			fail(w, http.StatusForbidden, "blocked")
			return
		}
	}
	fresh, err := f.store.ReceiveActivity(r.Context(), domain.ActivityReceived{
		ActivityID: id, ActorURL: actor, Activity: body, RecipientID: recipient,
	})
	if err != nil {
		f.failErr(w, r, err)
		return
	}
	if !fresh {
		f.log.InfoContext(r.Context(), "inbox: repeated activity ignored", "activity_id", id)
	}
	w.WriteHeader(http.StatusAccepted)
}

// handled are the activity types the inbound handler acts on.
var handled = map[string]bool{"Follow": true, "Undo": true, "Accept": true, "Reject": true, "Create": true, "Update": true,
	"Delete": true, "Block": true}

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
	if err := f.refuseHost(ctx, p.KeyID); err != nil {
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
	a, err := f.store.RemoteActorByKeyID(ctx, keyID)
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
