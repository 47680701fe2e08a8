package federation

import (
	"context"
	"errors"
	"slices"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Limits of the follow-time exchanges.
const (
	// BackfillReviews is how many recent reviews a newly accepted follower is sent.
	BackfillReviews = 20
	// ImportPages bounds how many outbox pages are read from an actor who accepted our follow.
	ImportPages = 5
)

// FollowTimeTypes are the events Import handles.
var FollowTimeTypes = []string{"FollowAccepted"}

// BackfillTypes are the events Backfill handles: ours (an incoming FollowAccepted) and the
// original movies-diary's BackfillFollower, which an adopted outbox or stream may still hold.
var BackfillTypes = []string{"FollowAccepted", "BackfillFollower"}

// Backfill sends a newly accepted remote follower the owner's recent reviews (an incoming
// FollowAccepted: the owner accepted the follower), when the owner federates reviews, one Create each, to the follower's own inbox. The Create ids derive from
// the event and the review, so a redelivery writes no second delivery. Quiet reviews are not
// sent: no follower gets their Create, so none misses their Update or Delete.
//
// A BackfillFollower (the original's, carried by an adoption) names the owner and the inbox the
// original meant to send to (the follower's shared inbox when it knew one): it gets the same
// reviews, when that inbox is still one of the owner's accepted remote followers' (none is owed
// to a follower who left meanwhile).
func (s *Service) Backfill(ctx context.Context, eventID string, event domain.Event) error {
	var owner uuid.UUID
	var inbox string
	switch e := event.(type) {
	case domain.FollowAccepted:
		if e.Outgoing() || e.Requester.Kind != domain.IdentityRemote {
			return nil
		}
		status, err := s.ports.Follows.FollowStatus(ctx, e.Requester, domain.LocalIdentity(e.OwnerID))
		if err != nil || status != "accepted" {
			return err
		}
		owner = e.OwnerID
	case domain.BackfillFollower:
		inboxes, err := s.ports.Follows.FollowerInboxes(ctx, e.OwnerUserID)
		if err != nil {
			return err
		}
		if !slices.Contains(inboxes, e.FollowerInboxURL) {
			s.log.InfoContext(ctx, "backfill skipped: the inbox is no longer a follower's", "event_id", eventID,
				"inbox", e.FollowerInboxURL)
			return nil
		}
		owner, inbox = e.OwnerUserID, e.FollowerInboxURL
	default:
		return nil
	}
	on, err := s.flag(ctx, owner, func(set domain.FederationSettings) bool { return set.Reviews })
	if err != nil || !on {
		return err
	}
	if e, ok := event.(domain.FollowAccepted); ok {
		follower, err := s.ports.Remote.Actor(ctx, e.Requester.ID, false)
		if err != nil {
			return err
		}
		inbox = follower.Inbox
	}
	reviews, movies, _, err := s.ports.Reviews.OutboxReviews(ctx, owner, 0, BackfillReviews)
	if err != nil {
		return err
	}
	key := eventKey(eventID, event)
	var errs []error
	for i := len(reviews) - 1; i >= 0; i-- { // oldest first, as they were written
		if reviews[i].Quiet {
			continue // imported without federate: true: never announced, to anyone (no Update or Delete follows it)
		}
		create := Activity{ID: ActivityID(s.urls.Base, key, "Create/"+reviews[i].ID.String()), Type: "Create", Actor: owner,
			Object: Object{Review: &reviews[i], Movie: movies[i]}}
		errs = append(errs, s.publish(ctx, create, s.urls.Review(reviews[i].ID), []string{inbox}, nil))
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
