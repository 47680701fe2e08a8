package activitypub

import (
	"net/http"

	"moviesdiary/internal/usecase/federation"

	"github.com/google/uuid"
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
	if goneActorDelete(err, body) {
		f.log.DebugContext(r.Context(), "inbox: Delete of an unknown actor whose key is gone, acknowledged", "error", err)
		w.WriteHeader(http.StatusAccepted)
		return nil
	}
	if err != nil {
		return f.refused(r, err)
	}
	activity, err := decodeObject(body)
	if err != nil {
		return badRequest("body is not a JSON object")
	}
	if err := f.fed.Receive(r.Context(), signer.URL, recipient, inboundOf(activity), body); err != nil {
		return err
	}
	// A server that sends us activities is up: what the delivery lane holds for it goes now.
	if host := federation.HostOf(signer.URL); host != "" {
		if err := f.hosts.HostAlive(r.Context(), host, f.now()); err != nil {
			f.log.WarnContext(r.Context(), "inbox: could not mark the sender's host alive", "host", host, "error", err)
		}
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}
