package federation

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// InboundTypes are the events Process handles.
var InboundTypes = []string{"ActivityReceived"}

// handled are the activity types Process acts on; an inbox stores only these.
var handled = map[string]bool{"Follow": true, "Undo": true, "Accept": true, "Reject": true, "Create": true, "Update": true,
	"Delete": true, "Block": true}

// Receive is an inbox accepting an activity whose HTTP signature the adapter verified as made by
// the actor signer: the activity must have an id and a type, be its signer's and have its id on
// its actor's host. A type we do not handle (Like, Announce...) is accepted and not stored; on a
// user's inbox (recipient set) an actor the user blocked is refused. The rest is stored once by
// its id, with the ActivityReceived event that processes it; a repeated id is accepted and not
// stored again. Its errors carry the domain kind the client is answered with.
func (s *Service) Receive(ctx context.Context, signer string, recipient *uuid.UUID, in Inbound, raw []byte) error {
	switch {
	case in.ID == "" || in.Type == "":
		return domain.Invalid("an activity needs an id and a type")
	case in.Actor != signer:
		return domain.Errorf(domain.KindUnauthorized, "signed by %s on behalf of %s", signer, in.Actor)
	case HostOf(in.ID) != HostOf(in.Actor):
		return domain.Invalid("the activity id is not on its actor's host")
	}
	if !handled[in.Type] {
		s.ignore(ctx, in.ID, in.Type, IgnoredUnhandledType, nil)
		return nil
	}
	if recipient != nil {
		blocked, err := s.ports.Blocks.HasBlocked(ctx, *recipient, in.Actor)
		if err != nil {
			return err
		}
		if blocked {
			return domain.Forbidden("blocked")
		}
	}
	fresh, err := s.ports.Inbox.ReceiveActivity(ctx, domain.ActivityReceived{
		ActivityID: in.ID, ActorURL: in.Actor, Activity: raw, RecipientID: recipient,
	})
	if err != nil {
		return err
	}
	if !fresh {
		s.log.InfoContext(ctx, "inbox: repeated activity ignored", "activity_id", in.ID)
	}
	return nil
}

// Process acts on an activity an inbox stored (e) as the adapter read it (in). Every branch is
// idempotent (upserts, deletes, status changes guarded by the current status), so a redelivery
// is harmless; an activity of an instance blocked since it arrived, and every type we do not
// handle, is ignored.
func (s *Service) Process(ctx context.Context, e domain.ActivityReceived, in Inbound) error {
	actor := e.ActorURL
	if in.Actor != actor {
		return domain.Permanent(fmt.Errorf("inbound activity %s: actor is not its signer %s", e.ActivityID, actor))
	}
	if err := s.RefuseHost(ctx, actor); err != nil {
		if errors.Is(err, ErrDomainBlocked) {
			s.ignore(ctx, e.ActivityID, in.Type, IgnoredBlocked, nil)
			return nil
		}
		return err
	}
	switch in.Type {
	case "Follow":
		user, ok := s.urls.LocalUser(in.Object)
		if !ok {
			return nil
		}
		if _, err := s.ports.Accounts.UserByID(ctx, user); errors.Is(err, domain.ErrNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		if _, err := s.ports.Remote.Actor(ctx, actor, false); err != nil {
			return err
		}
		err := s.ports.Follows.AddRemoteFollower(ctx, user, actor, e.ActivityID, s.urls.Actor(user))
		if errors.Is(err, domain.ErrForbidden) || errors.Is(err, domain.ErrNotFound) {
			return nil
		}
		return err
	case "Undo":
		inner, err := s.innerActivity(ctx, in)
		if err != nil || inner == nil {
			return err
		}
		if inner.Type == "Follow" && inner.Actor == actor {
			if user, ok := s.urls.LocalUser(inner.Object); ok {
				return s.ports.Follows.RemoveRemoteFollower(ctx, user, actor)
			}
		}
		return nil
	case "Accept", "Reject":
		inner, err := s.innerActivity(ctx, in)
		if err != nil || inner == nil {
			return err
		}
		user, ok := s.urls.LocalUser(inner.Actor)
		if inner.Type != "Follow" || !ok || inner.Object != actor {
			return nil
		}
		return s.ports.Follows.FollowAnswered(ctx, user, actor, in.Type == "Accept")
	case "Create", "Update":
		if in.Note == nil {
			s.ignore(ctx, e.ActivityID, in.Type, IgnoredNotReview, errors.New("the object is not embedded"))
			return nil
		}
		r, ok, err := s.remoteReview(*in.Note, actor)
		switch {
		case err != nil:
			s.ignore(ctx, e.ActivityID, in.Type, IgnoredBadReview, err)
			return nil
		case !ok:
			s.ignore(ctx, e.ActivityID, in.Type, IgnoredNotReview, nil)
			return nil
		}
		return s.ports.Inbox.SaveRemoteReview(ctx, r)
	case "Delete":
		if in.Object == actor {
			return s.ports.Inbox.DeleteRemoteReviews(ctx, actor, "")
		}
		if in.Object == "" {
			return nil
		}
		return s.ports.Inbox.DeleteRemoteReviews(ctx, actor, in.Object)
	case "Block":
		if user, ok := s.urls.LocalUser(in.Object); ok {
			return s.ports.Follows.RemoveRemoteFollower(ctx, user, actor)
		}
	}
	return nil
}

// innerActivity is the object of an Undo, Accept or Reject: embedded, or only its id, which
// must then be one of the relations we recorded (nil when it is not).
func (s *Service) innerActivity(ctx context.Context, in Inbound) (*domain.Relation, error) {
	if in.Inner != nil {
		return in.Inner, nil
	}
	rel, err := s.ports.Publications.RelationByID(ctx, in.Object)
	if errors.Is(err, domain.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &rel, nil
}
