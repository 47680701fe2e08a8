package federation

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// InboundTypes are the events Process handles.
var InboundTypes = []string{"ActivityReceived"}

// handled are the activity types Process acts on; an inbox stores only these.
var handled = map[string]bool{"Follow": true, "Undo": true, "Accept": true, "Reject": true, "Create": true, "Update": true,
	"Delete": true, "Block": true, "Like": true, "Announce": true, "Move": true}

// Receive is an inbox accepting an activity whose HTTP signature the adapter verified as made by
// the actor signer: the activity must have an id and a type, be its signer's and have its id on
// its actor's host. A type we do not handle (EmojiReact, Flag, Add...) is accepted, counted and
// not stored; on a user's inbox (recipient set) an actor the user blocked is refused. The rest
// is stored once by its id, with the ActivityReceived event that processes it; a repeated id is
// accepted and not stored again. Its errors carry the domain kind the client is answered with.
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
		return s.undo(ctx, e, in)
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
		if in.Type == "Update" && actorTypes[in.Note.Type] {
			return s.actorUpdated(ctx, e, in)
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
	case "Like", "Announce":
		review, ok := s.urls.LocalReview(in.Object)
		if !ok {
			s.ignore(ctx, e.ActivityID, in.Type, IgnoredNotOurs, nil)
			return nil
		}
		return s.ports.Inbox.SaveReaction(ctx, domain.Reaction{ReviewID: review, Kind: in.Type, ActorURL: actor, ActivityID: e.ActivityID})
	case "Move":
		return s.move(ctx, e, in)
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
			return s.ports.Follows.BlockedByRemote(ctx, user, actor)
		}
		s.ignore(ctx, e.ActivityID, in.Type, IgnoredNotOurs, nil)
	}
	return nil
}

// actorTypes are the AS2 actor types an Update of an actor carries.
var actorTypes = map[string]bool{"Person": true, "Service": true, "Application": true, "Group": true, "Organization": true}

// undo reverses a remote actor's own Follow, Like or boost (embedded or named by id); an Undo of
// a Block has nothing to restore (the follows it dropped stay dropped).
func (s *Service) undo(ctx context.Context, e domain.ActivityReceived, in Inbound) error {
	actor := e.ActorURL
	inner, err := s.innerActivity(ctx, in)
	if err != nil {
		return err
	}
	if inner == nil {
		// Not a relation we recorded: it may be a reaction, which we know by its id.
		return s.ports.Inbox.RemoveReaction(ctx, domain.Reaction{ActorURL: actor, ActivityID: in.Object})
	}
	if inner.Actor != "" && inner.Actor != actor {
		s.ignore(ctx, e.ActivityID, in.Type, IgnoredNotOurs, errors.New("undoes another actor's activity"))
		return nil
	}
	switch inner.Type {
	case "Follow":
		if user, ok := s.urls.LocalUser(inner.Object); ok {
			return s.ports.Follows.RemoveRemoteFollower(ctx, user, actor)
		}
	case "Like", "Announce":
		r := domain.Reaction{ActorURL: actor, ActivityID: inner.ActivityID, Kind: inner.Type}
		r.ReviewID, _ = s.urls.LocalReview(inner.Object)
		return s.ports.Inbox.RemoveReaction(ctx, r)
	case "Block":
		return nil
	}
	s.ignore(ctx, e.ActivityID, in.Type, IgnoredNotOurs, fmt.Errorf("undo of %q", inner.Type))
	return nil
}

// actorUpdated refreshes the cached document of a remote actor who sent an Update of itself (a
// new name, inbox or key).
func (s *Service) actorUpdated(ctx context.Context, e domain.ActivityReceived, in Inbound) error {
	if in.Note.ID != e.ActorURL {
		s.ignore(ctx, e.ActivityID, in.Type, IgnoredNotOurs, errors.New("an update of another actor"))
		return nil
	}
	_, err := s.ports.Remote.Actor(ctx, e.ActorURL, true)
	if domain.IsPermanent(err) {
		s.ignore(ctx, e.ActivityID, in.Type, IgnoredNotOurs, err)
		return nil
	}
	return err
}

// move follows a remote actor to its new account: the target's fresh document must list the old
// actor in alsoKnownAs (so nobody can move someone else's followers); then the local users who
// followed the old actor follow the new one (pending until it accepts).
func (s *Service) move(ctx context.Context, e domain.ActivityReceived, in Inbound) error {
	actor := e.ActorURL
	if in.Object != actor || in.Target == "" || in.Target == actor {
		s.ignore(ctx, e.ActivityID, in.Type, IgnoredNotOurs, errors.New("a Move of another actor, or to nowhere"))
		return nil
	}
	target, err := s.ports.Remote.Actor(ctx, in.Target, true)
	if domain.IsPermanent(err) {
		s.ignore(ctx, e.ActivityID, in.Type, IgnoredNotOurs, err)
		return nil
	}
	if err != nil {
		return err
	}
	if !slices.Contains(target.AlsoKnownAs, actor) {
		s.ignore(ctx, e.ActivityID, in.Type, IgnoredNotOurs, fmt.Errorf("%s does not list %s in alsoKnownAs", in.Target, actor))
		return nil
	}
	return s.ports.Follows.MoveFollows(ctx, actor, in.Target)
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
