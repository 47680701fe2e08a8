package domain

import (
	"cmp"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
)

// Kinds of SocialIdentity, as they appear in the *_kind fields of social payloads.
const (
	// IdentityLocal is a user of this instance; the ID is the user's UUID string.
	IdentityLocal = "local"
	// IdentityRemote is a federated actor; the ID is its actor URL.
	IdentityRemote = "remote"
	// IdentityHandle is an unresolved "@user@host" handle; only FollowRequested targets use it.
	IdentityHandle = "handle"
)

// SocialIdentity is the other party of a social event, flattened on the wire into a (kind, id)
// pair whose key names depend on the event.
type SocialIdentity struct {
	Kind string // Kind is IdentityLocal, IdentityRemote or IdentityHandle.
	ID   string // ID is the user UUID, the actor URL or the handle, according to Kind.
}

// LocalIdentity returns the identity of the local user id.
func LocalIdentity(id uuid.UUID) SocialIdentity {
	return SocialIdentity{Kind: IdentityLocal, ID: id.String()}
}

// RemoteIdentity returns the identity of the federated actor at actorURL.
func RemoteIdentity(actorURL string) SocialIdentity {
	return SocialIdentity{Kind: IdentityRemote, ID: actorURL}
}

// HandleIdentity returns a follow target known only by its "@user@host" handle.
func HandleIdentity(handle string) SocialIdentity {
	return SocialIdentity{Kind: IdentityHandle, ID: handle}
}

// UserID returns the local user's UUID when the identity is local.
func (s SocialIdentity) UserID() (uuid.UUID, bool) {
	if s.Kind != IdentityLocal {
		return uuid.Nil, false
	}
	id, err := uuid.Parse(s.ID)
	return id, err == nil
}

// check rejects an unknown kind, a handle where none is allowed, an empty id and a local id that
// is not a UUID. field is the payload's id key, for the message.
func (s SocialIdentity) check(field string, allowHandle bool) error {
	switch s.Kind {
	case IdentityLocal:
		id, err := uuid.Parse(s.ID)
		if err != nil {
			return fmt.Errorf("%s: local identity %q is not a UUID", field, s.ID)
		}
		return needID(field, id)
	case IdentityRemote:
	case IdentityHandle:
		if !allowHandle {
			return fmt.Errorf("%s: identity kind %q not allowed here", field, s.Kind)
		}
	default:
		return fmt.Errorf("%s: unknown identity kind %q", field, s.Kind)
	}
	return needText(field, s.ID)
}

// FollowRequested means a local user asked to follow someone; the social use case emits it after
// the follow is recorded. Target may be a handle. No consumer.
type FollowRequested struct {
	FollowerID uuid.UUID
	Target     SocialIdentity
}

// EventType returns "FollowRequested".
func (FollowRequested) EventType() string { return "FollowRequested" }

// Validate checks the follower id and the target identity.
func (e FollowRequested) Validate() error {
	return firstErr(needID("follower_id", e.FollowerID), e.Target.check("target_id", true))
}

// MarshalJSON encodes follower_id, target_kind and target_id.
func (e FollowRequested) MarshalJSON() ([]byte, error) {
	return json.Marshal(followerTargetWire{e.FollowerID, e.Target.Kind, e.Target.ID})
}

// UnmarshalJSON decodes follower_id, target_kind and target_id.
func (e *FollowRequested) UnmarshalJSON(b []byte) error {
	var w followerTargetWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = FollowRequested{FollowerID: w.FollowerID, Target: SocialIdentity{w.TargetKind, w.TargetID}}
	return nil
}

// Directions of a FollowAccepted: who accepted whose follow.
const (
	// FollowIncoming: the local owner accepted the requester's follow of them (the social use
	// case). Federation answers a remote requester with an Accept and backfills our reviews.
	FollowIncoming = "incoming"
	// FollowOutgoing: the remote requester accepted the local owner's follow of it (an inbound
	// Accept). Federation imports the remote actor's outbox; nothing is sent.
	FollowOutgoing = "outgoing"
)

// FollowAccepted means a follow was accepted. Direction says which one: FollowIncoming (Owner
// accepted Requester's follow of Owner) or FollowOutgoing (the remote Requester accepted Owner's
// follow of it). The original used one event for both, so a mutual follow made the worker
// answer an old Follow again and re-send reviews; a payload without "direction" (the original,
// a foreign writer) is incoming, its primary meaning, and migration 0110 labelled the old rows.
type FollowAccepted struct {
	OwnerID   uuid.UUID
	Requester SocialIdentity
	Direction string
}

// EventType returns "FollowAccepted".
func (FollowAccepted) EventType() string { return "FollowAccepted" }

// Outgoing reports whether the remote requester accepted the owner's follow.
func (e FollowAccepted) Outgoing() bool { return e.Direction == FollowOutgoing }

// Validate checks the owner id, the requester identity and the direction (an outgoing follow
// was accepted by a remote actor).
func (e FollowAccepted) Validate() error {
	var dir error
	switch e.Direction {
	case "", FollowIncoming:
	case FollowOutgoing:
		if e.Requester.Kind != IdentityRemote {
			dir = fmt.Errorf("direction: an outgoing follow is accepted by a remote actor, not %q", e.Requester.Kind)
		}
	default:
		dir = fmt.Errorf("direction: %q is neither %q nor %q", e.Direction, FollowIncoming, FollowOutgoing)
	}
	return firstErr(needID("owner_id", e.OwnerID), e.Requester.check("requester_id", false), dir)
}

// MarshalJSON encodes owner_id, requester_kind, requester_id and direction.
func (e FollowAccepted) MarshalJSON() ([]byte, error) {
	return json.Marshal(followAcceptedWire{ownerRequesterWire{e.OwnerID, e.Requester.Kind, e.Requester.ID}, cmp.Or(e.Direction, FollowIncoming)})
}

// UnmarshalJSON decodes owner_id, requester_kind, requester_id and direction (incoming when
// absent).
func (e *FollowAccepted) UnmarshalJSON(b []byte) error {
	var w followAcceptedWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = FollowAccepted{OwnerID: w.OwnerID, Requester: SocialIdentity{w.RequesterKind, w.RequesterID},
		Direction: cmp.Or(w.Direction, FollowIncoming)}
	return nil
}

// followAcceptedWire is FollowAccepted on the wire: the owner/requester pair and the direction.
type followAcceptedWire struct {
	ownerRequesterWire
	Direction string `json:"direction"`
}

// FollowRejected means a local user rejected a follow request; the social use case emits it. No
// consumer.
type FollowRejected struct {
	OwnerID   uuid.UUID
	Requester SocialIdentity
}

// EventType returns "FollowRejected".
func (FollowRejected) EventType() string { return "FollowRejected" }

// Validate checks the owner id and the requester identity.
func (e FollowRejected) Validate() error {
	return firstErr(needID("owner_id", e.OwnerID), e.Requester.check("requester_id", false))
}

// MarshalJSON encodes owner_id, requester_kind and requester_id.
func (e FollowRejected) MarshalJSON() ([]byte, error) {
	return json.Marshal(ownerRequesterWire{e.OwnerID, e.Requester.Kind, e.Requester.ID})
}

// UnmarshalJSON decodes owner_id, requester_kind and requester_id.
func (e *FollowRejected) UnmarshalJSON(b []byte) error {
	var w ownerRequesterWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = FollowRejected{OwnerID: w.OwnerID, Requester: SocialIdentity{w.RequesterKind, w.RequesterID}}
	return nil
}

// Unfollowed means a local user stopped following someone; the social use case emits it. No
// consumer.
type Unfollowed struct {
	FollowerID uuid.UUID
	Target     SocialIdentity
}

// EventType returns "Unfollowed".
func (Unfollowed) EventType() string { return "Unfollowed" }

// Validate checks the follower id and the target identity.
func (e Unfollowed) Validate() error {
	return firstErr(needID("follower_id", e.FollowerID), e.Target.check("target_id", false))
}

// MarshalJSON encodes follower_id, target_kind and target_id.
func (e Unfollowed) MarshalJSON() ([]byte, error) {
	return json.Marshal(followerTargetWire{e.FollowerID, e.Target.Kind, e.Target.ID})
}

// UnmarshalJSON decodes follower_id, target_kind and target_id.
func (e *Unfollowed) UnmarshalJSON(b []byte) error {
	var w followerTargetWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = Unfollowed{FollowerID: w.FollowerID, Target: SocialIdentity{w.TargetKind, w.TargetID}}
	return nil
}

// FollowerRemoved means a local user removed one of their followers; the social use case emits
// it. No consumer.
type FollowerRemoved struct {
	OwnerID  uuid.UUID
	Follower SocialIdentity
}

// EventType returns "FollowerRemoved".
func (FollowerRemoved) EventType() string { return "FollowerRemoved" }

// Validate checks the owner id and the follower identity.
func (e FollowerRemoved) Validate() error {
	return firstErr(needID("owner_id", e.OwnerID), e.Follower.check("follower_id", false))
}

// MarshalJSON encodes owner_id, follower_kind and follower_id.
func (e FollowerRemoved) MarshalJSON() ([]byte, error) {
	return json.Marshal(ownerFollowerWire{e.OwnerID, e.Follower.Kind, e.Follower.ID})
}

// UnmarshalJSON decodes owner_id, follower_kind and follower_id.
func (e *FollowerRemoved) UnmarshalJSON(b []byte) error {
	var w ownerFollowerWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = FollowerRemoved{OwnerID: w.OwnerID, Follower: SocialIdentity{w.FollowerKind, w.FollowerID}}
	return nil
}

// ActorBlocked means a local user blocked someone; the social use case emits it. No consumer.
type ActorBlocked struct {
	BlockerID uuid.UUID
	Target    SocialIdentity
}

// EventType returns "ActorBlocked".
func (ActorBlocked) EventType() string { return "ActorBlocked" }

// Validate checks the blocker id and the target identity.
func (e ActorBlocked) Validate() error {
	return firstErr(needID("blocker_id", e.BlockerID), e.Target.check("target_id", false))
}

// MarshalJSON encodes blocker_id, target_kind and target_id.
func (e ActorBlocked) MarshalJSON() ([]byte, error) {
	return json.Marshal(blockerTargetWire{e.BlockerID, e.Target.Kind, e.Target.ID})
}

// UnmarshalJSON decodes blocker_id, target_kind and target_id.
func (e *ActorBlocked) UnmarshalJSON(b []byte) error {
	var w blockerTargetWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = ActorBlocked{BlockerID: w.BlockerID, Target: SocialIdentity{w.TargetKind, w.TargetID}}
	return nil
}

// ActorUnblocked means a local user lifted a block; the social use case emits it. No consumer.
type ActorUnblocked struct {
	BlockerID uuid.UUID
	Target    SocialIdentity
}

// EventType returns "ActorUnblocked".
func (ActorUnblocked) EventType() string { return "ActorUnblocked" }

// Validate checks the blocker id and the target identity.
func (e ActorUnblocked) Validate() error {
	return firstErr(needID("blocker_id", e.BlockerID), e.Target.check("target_id", false))
}

// MarshalJSON encodes blocker_id, target_kind and target_id.
func (e ActorUnblocked) MarshalJSON() ([]byte, error) {
	return json.Marshal(blockerTargetWire{e.BlockerID, e.Target.Kind, e.Target.ID})
}

// UnmarshalJSON decodes blocker_id, target_kind and target_id.
func (e *ActorUnblocked) UnmarshalJSON(b []byte) error {
	var w blockerTargetWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = ActorUnblocked{BlockerID: w.BlockerID, Target: SocialIdentity{w.TargetKind, w.TargetID}}
	return nil
}

// BackfillFollower asks the worker to send a local user's whole history to a newly accepted
// follower's inbox; the federation bridge emits it when a remote follow is accepted.
type BackfillFollower struct {
	OwnerUserID      uuid.UUID `json:"owner_user_id"`
	FollowerInboxURL string    `json:"follower_inbox_url"`
}

// EventType returns "BackfillFollower".
func (BackfillFollower) EventType() string { return "BackfillFollower" }

// Validate checks the owner id and that the inbox URL is not empty.
func (e BackfillFollower) Validate() error {
	return firstErr(needID("owner_user_id", e.OwnerUserID), needText("follower_inbox_url", e.FollowerInboxURL))
}

// Wire shapes of the social events: a user id plus a flattened SocialIdentity, key names per event.
type (
	followerTargetWire struct {
		FollowerID uuid.UUID `json:"follower_id"`
		TargetKind string    `json:"target_kind"`
		TargetID   string    `json:"target_id"`
	}
	ownerRequesterWire struct {
		OwnerID       uuid.UUID `json:"owner_id"`
		RequesterKind string    `json:"requester_kind"`
		RequesterID   string    `json:"requester_id"`
	}
	ownerFollowerWire struct {
		OwnerID      uuid.UUID `json:"owner_id"`
		FollowerKind string    `json:"follower_kind"`
		FollowerID   string    `json:"follower_id"`
	}
	blockerTargetWire struct {
		BlockerID  uuid.UUID `json:"blocker_id"`
		TargetKind string    `json:"target_kind"`
		TargetID   string    `json:"target_id"`
	}
)
