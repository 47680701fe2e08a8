package activitypub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
)

// Handler names: stable, they key the processed-event ledger.
const (
	OutboundHandler = "federation.outbound"
	DeliverHandler  = "federation.deliver"
	InboundHandler  = "federation.inbound"
	BackfillHandler = "federation.backfill"
	ImportHandler   = "federation.import"
)

// Handlers are the worker's federation handlers: outbound turns domain events into activities
// and fans each out as one delivery per inbox; deliver POSTs one delivery; inbound processes an
// activity an inbox stored; backfill sends a newly accepted follower our recent reviews; import
// reads the outbox of an actor who accepted our follow.
func (f *Federation) Handlers() []delivery.Handler {
	return []delivery.Handler{
		{Name: OutboundHandler, Handle: f.outbound, Types: []string{
			"ReviewLogged", "ReviewUpdated", "ReviewDeleted", "PosterSynced", "WatchlistEntryAdded", "WatchlistEntryRemoved",
			"FollowRequested", "Unfollowed", "FollowAccepted", "FollowRejected", "FollowerRemoved",
			"ActorBlocked", "ActorUnblocked", "UserAccountMoved", "UserUpdated", "UserDeleted",
		}},
		{Name: DeliverHandler, Handle: f.deliver, Types: []string{"FederationDeliveryRequested"}},
		{Name: InboundHandler, Handle: f.inbound, Types: []string{"ActivityReceived"}},
		{Name: BackfillHandler, Handle: f.backfill, Types: []string{"FollowAccepted"}},
		{Name: ImportHandler, Handle: f.importOutbox, Types: []string{"FollowAccepted"}},
	}
}

// eventKey is what activity ids derive from: the event id, or for a row without one (a foreign
// writer) a hash of the payload, so even those ids repeat on a replay.
func eventKey(env delivery.Envelope) string {
	if env.EventID != "" {
		return env.EventID
	}
	payload, _ := domain.Encode(env.Event)
	return uuid.NewSHA1(idSpace, payload).String()
}

func (f *Federation) outbound(ctx context.Context, env delivery.Envelope) error {
	key := eventKey(env)
	switch e := env.Event.(type) {
	case domain.ReviewLogged:
		return f.publishReview(ctx, key, "Create", e.ReviewID)
	case domain.ReviewUpdated:
		return f.publishReview(ctx, key, "Update", e.ReviewID)
	case domain.PosterSynced:
		ids, err := f.store.LocalReviewsOfMovie(ctx, e.MovieID)
		if err != nil {
			return err
		}
		var errs []error
		for _, id := range ids {
			errs = append(errs, f.publishReview(ctx, key+"/"+id.String(), "Update", id))
		}
		return errors.Join(errs...)
	case domain.ReviewDeleted:
		object := f.urls.Review(e.ReviewID)
		return f.toFollowers(ctx, e.UserID, Activity(ActivityID(f.urls.Base, key, "Delete"), "Delete", f.urls.Actor(e.UserID),
			Tombstone(object)), object)
	case domain.WatchlistEntryAdded:
		on, err := f.flag(ctx, e.UserID, func(s domain.FederationSettings) bool { return s.Watchlist })
		if err != nil || !on {
			return err
		}
		note := f.urls.WatchlistNote(e)
		return f.toFollowers(ctx, e.UserID, Activity(ActivityID(f.urls.Base, key, "Create"), "Create", f.urls.Actor(e.UserID), note),
			str(note, "id"))
	case domain.WatchlistEntryRemoved:
		object := f.urls.WatchlistEntry(e.UserID, e.MovieID)
		return f.toFollowers(ctx, e.UserID, Activity(ActivityID(f.urls.Base, key, "Delete"), "Delete", f.urls.Actor(e.UserID),
			Tombstone(object)), object)
	case domain.UserAccountMoved:
		actor := f.urls.Actor(e.UserID)
		move := Activity(ActivityID(f.urls.Base, key, "Move"), "Move", actor, actor)
		move["target"] = e.NewActorURL
		return f.toFollowers(ctx, e.UserID, move, actor)
	case domain.UserUpdated:
		u, err := f.store.UserByID(ctx, e.UserID)
		if errors.Is(err, domain.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		_, pub, err := f.store.ActorKey(ctx, u.ID)
		if err != nil {
			return err
		}
		doc := f.urls.ActorDocument(u, nil, pub)
		delete(doc, "@context")
		actor := f.urls.Actor(u.ID)
		return f.toFollowers(ctx, u.ID, Activity(ActivityID(f.urls.Base, key, "Update"), "Update", actor, doc), actor)
	case domain.UserDeleted:
		actor := f.urls.Actor(e.UserID)
		return f.toFollowers(ctx, e.UserID, Activity(ActivityID(f.urls.Base, key, "Delete"), "Delete", actor, actor), actor)
	case domain.FollowRequested:
		return f.relate(ctx, key, "Follow", e.FollowerID, e.Target, false)
	case domain.Unfollowed:
		return f.relate(ctx, key, "Follow", e.FollowerID, e.Target, true)
	case domain.ActorBlocked:
		return f.relate(ctx, key, "Block", e.BlockerID, e.Target, false)
	case domain.ActorUnblocked:
		return f.relate(ctx, key, "Block", e.BlockerID, e.Target, true)
	case domain.FollowAccepted:
		// Also emitted when a remote actor accepts our follow (the requester is then the one
		// we follow): only a follow of the owner that is now accepted is answered.
		status, err := f.store.FollowStatus(ctx, e.Requester, domain.LocalIdentity(e.OwnerID))
		if err != nil || status != "accepted" {
			return err
		}
		return f.answer(ctx, key, "Accept", e.OwnerID, e.Requester)
	case domain.FollowRejected:
		return f.answer(ctx, key, "Reject", e.OwnerID, e.Requester)
	case domain.FollowerRemoved:
		return f.answer(ctx, key, "Reject", e.OwnerID, e.Follower)
	}
	return nil
}

// flag reads one of a user's federation settings; a read error is returned (the event is
// retried), so nothing is sent that the user may have turned off: federation fails closed.
func (f *Federation) flag(ctx context.Context, user uuid.UUID, pick func(domain.FederationSettings) bool) (bool, error) {
	s, err := f.store.Settings(ctx, user)
	if err != nil {
		return false, fmt.Errorf("read federation settings: %w", err)
	}
	return pick(s), nil
}

// publishReview sends a Create or Update of a review's Note to its author's followers, when the
// review still exists and its author federates reviews.
func (f *Federation) publishReview(ctx context.Context, key, kind string, id uuid.UUID) error {
	r, m, err := f.store.FederatedReview(ctx, id)
	if errors.Is(err, domain.ErrNotFound) {
		return nil // deleted since: its Delete follows
	}
	if err != nil {
		return err
	}
	on, err := f.flag(ctx, r.UserID, func(s domain.FederationSettings) bool { return s.Reviews })
	if err != nil || !on {
		return err
	}
	note := f.urls.ReviewNote(r, m)
	return f.toFollowers(ctx, r.UserID, Activity(ActivityID(f.urls.Base, key, kind), kind, f.urls.Actor(r.UserID), note), str(note, "id"))
}

// toFollowers publishes an activity of user to one inbox per server of their followers.
func (f *Federation) toFollowers(ctx context.Context, user uuid.UUID, activity Object, objectID string) error {
	inboxes, err := f.store.FollowerInboxes(ctx, user)
	if err != nil {
		return err
	}
	return f.publish(ctx, user, activity, objectID, inboxes, nil)
}

// publish records an activity and its deliveries in one transaction: one delivery per distinct
// inbox not on a blocked domain, each with an id derived from the activity id and the inbox.
func (f *Federation) publish(ctx context.Context, user uuid.UUID, activity Object, objectID string, inboxes []string, rel *domain.Relation) error {
	raw, err := json.Marshal(activity)
	if err != nil {
		return domain.Permanent(fmt.Errorf("encode activity: %w", err))
	}
	id := str(activity, "id")
	p := domain.Publication{ActivityID: id, Type: str(activity, "type"), ActorID: user, ObjectID: objectID, Activity: raw,
		Relation: rel}
	blocked, err := f.store.BlockedDomains(ctx)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, inbox := range inboxes {
		if seen[inbox] || blockedIn(hostOf(inbox), blocked) {
			continue
		}
		seen[inbox] = true
		p.Deliveries = append(p.Deliveries, domain.Delivery{EventID: DeliveryID(id, inbox), Event: domain.FederationDeliveryRequested{
			InboxURL: inbox, ActivityJSON: raw, SigningActorID: user,
		}})
	}
	return f.store.Publish(ctx, p)
}

// relate sends a Follow or Block from a local user to a remote actor, or (undo) its Undo, which
// carries the original activity (its recorded id, its actor and object). Local targets need no
// activity.
func (f *Federation) relate(ctx context.Context, key, kind string, user uuid.UUID, target domain.SocialIdentity, undo bool) error {
	if target.Kind != domain.IdentityRemote {
		return nil
	}
	me := f.urls.Actor(user)
	if !undo && kind == "Follow" {
		blocked, err := f.store.HasBlocked(ctx, user, target.ID)
		if err != nil || blocked {
			return err
		}
	}
	actor, err := f.Actor(ctx, target.ID, false)
	if err != nil {
		return err
	}
	if !undo {
		id := ActivityID(f.urls.Base, key, kind)
		return f.publish(ctx, user, Activity(id, kind, me, target.ID, target.ID), target.ID, []string{actor.Inbox},
			&domain.Relation{Type: kind, Actor: me, Object: target.ID, ActivityID: id})
	}
	inner := Object{"type": kind, "actor": me, "object": target.ID}
	if id, err := f.store.Relation(ctx, kind, me, target.ID); err != nil {
		return err
	} else if id != "" {
		inner["id"] = id
	}
	return f.publish(ctx, user, Activity(ActivityID(f.urls.Base, key, "Undo"), "Undo", me, inner, target.ID), target.ID,
		[]string{actor.Inbox}, nil)
}

// answer sends a remote follower an Accept or Reject of its Follow of a local user.
func (f *Federation) answer(ctx context.Context, key, kind string, owner uuid.UUID, follower domain.SocialIdentity) error {
	if follower.Kind != domain.IdentityRemote {
		return nil
	}
	me := f.urls.Actor(owner)
	actor, err := f.Actor(ctx, follower.ID, false)
	if err != nil {
		return err
	}
	follow := Object{"type": "Follow", "actor": follower.ID, "object": me}
	if id, err := f.store.Relation(ctx, "Follow", follower.ID, me); err != nil {
		return err
	} else if id != "" {
		follow["id"] = id
	}
	return f.publish(ctx, owner, Activity(ActivityID(f.urls.Base, key, kind), kind, me, follow, follower.ID), follower.ID,
		[]string{actor.Inbox}, nil)
}

// deliver POSTs one activity to one inbox, signed by its actor. A 4xx other than 408/429 is
// permanent (dead-lettered at once); 5xx, timeouts and network errors are retried with backoff.
// An inbox on a domain blocked since the fan-out is skipped.
func (f *Federation) deliver(ctx context.Context, env delivery.Envelope) error {
	e, ok := env.Event.(domain.FederationDeliveryRequested)
	if !ok {
		return nil
	}
	if err := f.refuseHost(ctx, e.InboxURL); err != nil {
		if errors.Is(err, ErrDomainBlocked) {
			f.log.InfoContext(ctx, "delivery skipped: domain blocked", "event_id", env.EventID, "inbox", e.InboxURL)
			return nil
		}
		return err
	}
	signer, err := f.signer(ctx, e.SigningActorID)
	if err != nil {
		return err
	}
	return f.client.Post(ctx, e.InboxURL, e.ActivityJSON, *signer)
}
