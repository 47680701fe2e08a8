package federation

import (
	"context"
	"errors"

	"moviesdiary/internal/domain"
)

// Limits of the follow-time exchanges.
const (
	// BackfillReviews is how many recent reviews a newly accepted follower is sent.
	BackfillReviews = 20
	// ImportPages bounds how many outbox pages are read from an actor who accepted our follow.
	ImportPages = 5
)

// FollowTimeTypes are the events Backfill and Import handle.
var FollowTimeTypes = []string{"FollowAccepted"}

// Backfill sends a newly accepted remote follower the owner's recent reviews (an incoming
// FollowAccepted: the owner accepted the follower), when the owner federates reviews, one Create each, to the follower's own inbox. The Create ids derive from
// the event and the review, so a redelivery writes no second delivery. Quiet reviews are not
// sent: no follower gets their Create, so none misses their Update or Delete.
func (s *Service) Backfill(ctx context.Context, eventID string, event domain.Event) error {
	e, ok := event.(domain.FollowAccepted)
	if !ok || e.Outgoing() || e.Requester.Kind != domain.IdentityRemote {
		return nil
	}
	status, err := s.ports.Follows.FollowStatus(ctx, e.Requester, domain.LocalIdentity(e.OwnerID))
	if err != nil || status != "accepted" {
		return err
	}
	on, err := s.flag(ctx, e.OwnerID, func(set domain.FederationSettings) bool { return set.Reviews })
	if err != nil || !on {
		return err
	}
	follower, err := s.ports.Remote.Actor(ctx, e.Requester.ID, false)
	if err != nil {
		return err
	}
	reviews, movies, _, err := s.ports.Reviews.OutboxReviews(ctx, e.OwnerID, 0, BackfillReviews)
	if err != nil {
		return err
	}
	key := eventKey(eventID, event)
	var errs []error
	for i := len(reviews) - 1; i >= 0; i-- { // oldest first, as they were written
		if reviews[i].Quiet {
			continue // imported without federate: true: never announced, to anyone (no Update or Delete follows it)
		}
		create := Activity{ID: ActivityID(s.urls.Base, key, "Create/"+reviews[i].ID.String()), Type: "Create", Actor: e.OwnerID,
			Object: Object{Review: &reviews[i], Movie: movies[i]}}
		errs = append(errs, s.publish(ctx, create, s.urls.Review(reviews[i].ID), []string{follower.Inbox}, nil))
	}
	return errors.Join(errs...)
}

// Import reads the outbox of a remote actor who accepted a local user's follow (an outgoing
// FollowAccepted) and saves the
// reviews in it (upserts keyed by object id), newest pages first, at most ImportPages, and only
// pages on the actor's own host.
func (s *Service) Import(ctx context.Context, event domain.Event) error {
	e, ok := event.(domain.FollowAccepted)
	if !ok || !e.Outgoing() {
		return nil
	}
	status, err := s.ports.Follows.FollowStatus(ctx, domain.LocalIdentity(e.OwnerID), e.Requester)
	if err != nil || status != "accepted" {
		return err
	}
	actor, err := s.ports.Remote.Actor(ctx, e.Requester.ID, false)
	if err != nil || actor.Outbox == "" {
		return err
	}
	next := actor.Outbox
	for page := 0; next != "" && page <= ImportPages; page++ {
		if err := s.RefuseHost(ctx, next); err != nil || HostOf(next) != HostOf(actor.URL) {
			return err
		}
		doc, err := s.ports.Remote.OutboxPage(ctx, next, e.OwnerID)
		if err != nil {
			return err
		}
		for _, item := range doc.Items {
			if item.Type != "Create" || item.Actor != actor.URL || item.Note == nil {
				continue
			}
			r, ok, err := s.remoteReview(*item.Note, actor.URL)
			if err != nil || !ok {
				continue
			}
			if err := s.ports.Inbox.SaveRemoteReview(ctx, r); err != nil {
				return err
			}
		}
		if doc.Collection && page == 0 {
			next = doc.First
			continue
		}
		next = doc.Next
	}
	return nil
}
