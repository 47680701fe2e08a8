package activitypub

import (
	"context"
	"errors"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
)

// Limits of the follow-time exchanges.
const (
	// BackfillReviews is how many recent reviews a newly accepted follower is sent.
	BackfillReviews = 20
	// ImportPages bounds how many outbox pages are read from an actor who accepted our follow.
	ImportPages = 5
)

// backfill sends a newly accepted remote follower the owner's recent reviews, one Create each,
// to the follower's own inbox. The Create ids derive from the event and the review, so a
// redelivery writes no second delivery.
func (f *Federation) backfill(ctx context.Context, env delivery.Envelope) error {
	e, ok := env.Event.(domain.FollowAccepted)
	if !ok || e.Requester.Kind != domain.IdentityRemote {
		return nil
	}
	status, err := f.store.FollowStatus(ctx, e.Requester, domain.LocalIdentity(e.OwnerID))
	if err != nil || status != "accepted" {
		return err
	}
	on, err := f.flag(ctx, e.OwnerID, func(s domain.FederationSettings) bool { return s.Reviews })
	if err != nil || !on {
		return err
	}
	follower, err := f.Actor(ctx, e.Requester.ID, false)
	if err != nil {
		return err
	}
	reviews, movies, _, err := f.store.OutboxReviews(ctx, e.OwnerID, 0, BackfillReviews)
	if err != nil {
		return err
	}
	key, me := eventKey(env), f.urls.Actor(e.OwnerID)
	var errs []error
	for i := len(reviews) - 1; i >= 0; i-- { // oldest first, as they were written
		note := f.urls.ReviewNote(reviews[i], movies[i])
		create := Activity(ActivityID(f.urls.Base, key, "Create/"+reviews[i].ID.String()), "Create", me, note)
		errs = append(errs, f.publish(ctx, e.OwnerID, create, str(note, "id"), []string{follower.Inbox}, nil))
	}
	return errors.Join(errs...)
}

// importOutbox reads the outbox of a remote actor who accepted a local user's follow and saves
// the reviews in it (upserts keyed by object id), newest pages first, at most ImportPages.
func (f *Federation) importOutbox(ctx context.Context, env delivery.Envelope) error {
	e, ok := env.Event.(domain.FollowAccepted)
	if !ok || e.Requester.Kind != domain.IdentityRemote {
		return nil
	}
	status, err := f.store.FollowStatus(ctx, domain.LocalIdentity(e.OwnerID), e.Requester)
	if err != nil || status != "accepted" {
		return err
	}
	actor, err := f.Actor(ctx, e.Requester.ID, false)
	if err != nil || actor.Outbox == "" {
		return err
	}
	signer, err := f.signer(ctx, e.OwnerID)
	if err != nil {
		return err
	}
	next := actor.Outbox
	for page := 0; next != "" && page <= ImportPages; page++ {
		if err := f.refuseHost(ctx, next); err != nil || hostOf(next) != hostOf(actor.URL) {
			return err
		}
		body, err := f.client.Get(ctx, next, ContentType, signer)
		if err != nil {
			return err
		}
		doc, err := decodeObject(body)
		if err != nil {
			return domain.Permanent(err)
		}
		items, _ := doc["orderedItems"].([]any)
		if items == nil {
			items, _ = doc["items"].([]any)
		}
		for _, it := range items {
			item, _ := it.(map[string]any)
			if item == nil || str(item, "type") != "Create" || str(item, "actor") != actor.URL {
				continue
			}
			note := obj(item, "object")
			if note == nil {
				continue
			}
			r, ok, err := f.parseReview(note, actor.URL)
			if err != nil || !ok {
				continue
			}
			if err := f.store.SaveRemoteReview(ctx, r); err != nil {
				return err
			}
		}
		if first := doc["first"]; first != nil && page == 0 && items == nil {
			if embedded, ok := first.(map[string]any); ok {
				next = str(embedded, "id")
			} else {
				next, _ = first.(string)
			}
			continue
		}
		next = str(doc, "next")
	}
	return nil
}
