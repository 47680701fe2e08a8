package federation

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// OutboundTypes are the events Outbound turns into activities.
var OutboundTypes = []string{
	"ReviewLogged", "ReviewUpdated", "ReviewDeleted", "PosterSynced", "WatchlistEntryAdded", "WatchlistEntryRemoved",
	"GoalCreated", "GoalUpdated", "GoalDeleted",
	"FollowRequested", "Unfollowed", "FollowAccepted", "FollowRejected", "FollowerRemoved",
	"ActorBlocked", "ActorUnblocked", "UserAccountMoved", "UserUpdated", "UserDeleted",
}

// Outbound turns a local event into the activity it causes and publishes it with one delivery
// per inbox: reviews and watchlist entries (when their author federates them) and account
// changes to the author's followers, follows, blocks and their undoing to the remote actor,
// answers to a follow request to the requester. Goals go out (Create, Update, Delete) only while
// their user federates goals. The activity id derives from eventID, so a
// replay writes the same rows again.
func (s *Service) Outbound(ctx context.Context, eventID string, event domain.Event) error {
	key := eventKey(eventID, event)
	id := func(kind string) string { return ActivityID(s.urls.Base, key, kind) }
	switch e := event.(type) {
	case domain.ReviewLogged:
		if e.Quiet {
			return nil // imported without federate: true
		}
		return s.publishReview(ctx, key, "Create", e.ReviewID)
	case domain.ReviewUpdated:
		return s.publishReview(ctx, key, "Update", e.ReviewID)
	case domain.PosterSynced:
		ids, err := s.ports.Reviews.LocalReviewsOfMovie(ctx, e.MovieID)
		if err != nil {
			return err
		}
		var errs []error
		for _, rid := range ids {
			errs = append(errs, s.publishReview(ctx, key+"/"+rid.String(), "Update", rid))
		}
		return errors.Join(errs...)
	case domain.ReviewDeleted:
		if e.Quiet {
			return nil // never announced: its followers have nothing to delete
		}
		object := s.urls.Review(e.ReviewID)
		return s.toFollowers(ctx, Activity{ID: id("Delete"), Type: "Delete", Actor: e.UserID, Object: Object{Tombstone: object}}, object)
	case domain.WatchlistEntryAdded:
		if e.Quiet {
			return nil // imported without federate: true
		}
		on, err := s.flag(ctx, e.UserID, func(set domain.FederationSettings) bool { return set.Watchlist })
		if err != nil || !on {
			return err
		}
		return s.toFollowers(ctx, Activity{ID: id("Create"), Type: "Create", Actor: e.UserID, Object: Object{Watchlist: &e}},
			s.urls.WatchlistEntry(e.UserID, e.MovieID))
	case domain.WatchlistEntryRemoved:
		object := s.urls.WatchlistEntry(e.UserID, e.MovieID)
		return s.toFollowers(ctx, Activity{ID: id("Delete"), Type: "Delete", Actor: e.UserID, Object: Object{Tombstone: object}}, object)
	case domain.GoalCreated:
		return s.publishGoal(ctx, id("Create"), "Create", e.UserID, e.GoalID)
	case domain.GoalUpdated:
		return s.publishGoal(ctx, id("Update"), "Update", e.UserID, e.GoalID)
	case domain.GoalDeleted:
		on, err := s.flag(ctx, e.UserID, func(set domain.FederationSettings) bool { return set.Goals })
		if err != nil || !on {
			return err
		}
		object := s.urls.Goal(e.UserID, int(e.Year))
		return s.toFollowers(ctx, Activity{ID: id("Delete"), Type: "Delete", Actor: e.UserID, Object: Object{Tombstone: object}}, object)
	case domain.UserAccountMoved:
		actor := s.urls.Actor(e.UserID)
		return s.toFollowers(ctx, Activity{ID: id("Move"), Type: "Move", Actor: e.UserID, Object: Object{ID: actor},
			Target: e.NewActorURL}, actor)
	case domain.UserUpdated:
		u, err := s.ports.Accounts.UserByID(ctx, e.UserID)
		if errors.Is(err, domain.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		return s.toFollowers(ctx, Activity{ID: id("Update"), Type: "Update", Actor: u.ID, Object: Object{Actor: &u}}, s.urls.Actor(u.ID))
	case domain.UserDeleted:
		actor := s.urls.Actor(e.UserID)
		return s.toFollowers(ctx, Activity{ID: id("Delete"), Type: "Delete", Actor: e.UserID, Object: Object{ID: actor}}, actor)
	case domain.FollowRequested:
		return s.relate(ctx, key, "Follow", e.FollowerID, e.Target, false)
	case domain.Unfollowed:
		return s.relate(ctx, key, "Follow", e.FollowerID, e.Target, true)
	case domain.ActorBlocked:
		return s.relate(ctx, key, "Block", e.BlockerID, e.Target, false)
	case domain.ActorUnblocked:
		return s.relate(ctx, key, "Block", e.BlockerID, e.Target, true)
	case domain.FollowAccepted:
		// An outgoing one (a remote actor accepted our follow) has nothing to send; an incoming
		// one answers the follow of the owner, while it is still accepted.
		if e.Outgoing() {
			return nil
		}
		status, err := s.ports.Follows.FollowStatus(ctx, e.Requester, domain.LocalIdentity(e.OwnerID))
		if err != nil || status != "accepted" {
			return err
		}
		return s.answer(ctx, key, "Accept", e.OwnerID, e.Requester)
	case domain.FollowRejected:
		return s.answer(ctx, key, "Reject", e.OwnerID, e.Requester)
	case domain.FollowerRemoved:
		return s.answer(ctx, key, "Reject", e.OwnerID, e.Follower)
	}
	return nil
}

// publishReview sends a Create or Update of a review's Note to its author's followers, when the
// review still exists and its author federates reviews.
func (s *Service) publishReview(ctx context.Context, key, kind string, id uuid.UUID) error {
	r, m, err := s.ports.Reviews.FederatedReview(ctx, id)
	if errors.Is(err, domain.ErrNotFound) {
		return nil // deleted since: its Delete follows
	}
	if err != nil {
		return err
	}
	if r.Quiet {
		return nil // imported without federate: true, never announced: no Update of it either
	}
	on, err := s.flag(ctx, r.UserID, func(set domain.FederationSettings) bool { return set.Reviews })
	if err != nil || !on {
		return err
	}
	return s.toFollowers(ctx, Activity{ID: ActivityID(s.urls.Base, key, kind), Type: kind, Actor: r.UserID,
		Object: Object{Review: &r, Movie: m}}, s.urls.Review(r.ID))
}

// toFollowers publishes an activity of its actor to one inbox per server of their followers.
func (s *Service) toFollowers(ctx context.Context, a Activity, objectID string) error {
	inboxes, err := s.ports.Follows.FollowerInboxes(ctx, a.Actor)
	if err != nil {
		return err
	}
	return s.publish(ctx, a, objectID, inboxes, nil)
}

// publish records an activity and its deliveries in one transaction: one delivery per distinct
// inbox not on a blocked domain, each with an id derived from the activity id and the inbox.
// With the delivery lane (Deps.Deliveries) they are written into its queue directly, and the
// lane is woken; without it they are outbox events that Deliver sends.
func (s *Service) publish(ctx context.Context, a Activity, objectID string, inboxes []string, rel *domain.Relation) error {
	raw, err := s.ports.Encode(ctx, a)
	if err != nil {
		return err
	}
	p := domain.Publication{ActivityID: a.ID, Type: a.Type, ActorID: a.Actor, ObjectID: objectID, Activity: raw, Relation: rel}
	blocked, err := s.ports.Blocks.BlockedDomains(ctx)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, inbox := range inboxes {
		host := HostOf(inbox)
		if seen[inbox] || blockedIn(host, blocked) {
			continue
		}
		if host == "" {
			s.log.WarnContext(ctx, "delivery skipped: the inbox has no host", "activity_id", a.ID, "inbox", inbox)
			continue
		}
		seen[inbox] = true
		p.Deliveries = append(p.Deliveries, domain.Delivery{EventID: DeliveryID(a.ID, inbox), Event: domain.FederationDeliveryRequested{
			InboxURL: inbox, ActivityJSON: raw, SigningActorID: a.Actor,
		}})
	}
	p.Direct = s.ports.Deliveries != nil
	if err := s.ports.Publications.Publish(ctx, p); err != nil {
		return err
	}
	if p.Direct && len(p.Deliveries) > 0 && s.ports.Wake != nil {
		s.ports.Wake()
	}
	return nil
}

// relate sends a Follow or Block from a local user to a remote actor, or (undo) its Undo, which
// carries the original activity (its recorded id, its actor and object). Local targets need no
// activity; a Follow of an actor the user blocked is not sent.
func (s *Service) relate(ctx context.Context, key, kind string, user uuid.UUID, target domain.SocialIdentity, undo bool) error {
	if target.Kind != domain.IdentityRemote {
		return nil
	}
	me := s.urls.Actor(user)
	if !undo && kind == "Follow" {
		blocked, err := s.ports.Blocks.HasBlocked(ctx, user, target.ID)
		if err != nil || blocked {
			return err
		}
	}
	actor, err := s.ports.Remote.Actor(ctx, target.ID, false)
	if err != nil {
		return err
	}
	if !undo {
		id := ActivityID(s.urls.Base, key, kind)
		return s.publish(ctx, Activity{ID: id, Type: kind, Actor: user, Object: Object{ID: target.ID}, To: []string{target.ID}},
			target.ID, []string{actor.Inbox}, &domain.Relation{Type: kind, Actor: me, Object: target.ID, ActivityID: id})
	}
	inner := domain.Relation{Type: kind, Actor: me, Object: target.ID}
	if inner.ActivityID, err = s.ports.Publications.Relation(ctx, kind, me, target.ID); err != nil {
		return err
	}
	return s.publish(ctx, Activity{ID: ActivityID(s.urls.Base, key, "Undo"), Type: "Undo", Actor: user,
		Object: Object{Activity: &inner}, To: []string{target.ID}}, target.ID, []string{actor.Inbox}, nil)
}

// answer sends a remote follower an Accept or Reject of its Follow of a local user.
func (s *Service) answer(ctx context.Context, key, kind string, owner uuid.UUID, follower domain.SocialIdentity) error {
	if follower.Kind != domain.IdentityRemote {
		return nil
	}
	me := s.urls.Actor(owner)
	actor, err := s.ports.Remote.Actor(ctx, follower.ID, false)
	if err != nil {
		return err
	}
	follow := domain.Relation{Type: "Follow", Actor: follower.ID, Object: me}
	if follow.ActivityID, err = s.ports.Publications.Relation(ctx, "Follow", follower.ID, me); err != nil {
		return err
	}
	return s.publish(ctx, Activity{ID: ActivityID(s.urls.Base, key, kind), Type: kind, Actor: owner,
		Object: Object{Activity: &follow}, To: []string{follower.ID}}, follower.ID, []string{actor.Inbox}, nil)
}

// publishGoal sends a goal as it is now (its target and progress) to its user's followers, when
// the user federates goals; a goal deleted since has nothing to send (its GoalDeleted follows).
func (s *Service) publishGoal(ctx context.Context, activityID, kind string, user, goal uuid.UUID) error {
	on, err := s.flag(ctx, user, func(set domain.FederationSettings) bool { return set.Goals })
	if err != nil || !on {
		return err
	}
	g, err := s.ports.Goals.GoalByID(ctx, goal)
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read goal: %w", err)
	}
	return s.toFollowers(ctx, Activity{ID: activityID, Type: kind, Actor: g.UserID, Object: Object{Goal: &g}}, s.urls.Goal(g.UserID, g.Year))
}
