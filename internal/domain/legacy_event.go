package domain

import (
	"maps"
	"slices"
)

// The original movies-diary's events left undelivered when it stopped (its outbox rows still
// pending or stranded in processing, or its JetStream stream's unacknowledged messages) are
// delivered by our worker as the events they are. That is right only where our handlers do what
// the original's worker owed: the engine settles an event no handler takes as done, and some of
// the original's events were effected when they were written. So each of its event types has a
// fate, decided from its code paths (reference: its event catalogue):
//
//   - delivered: our handlers do what its worker would have (LegacyDeliveredTypes);
//   - settled as done, saying why: nothing is owed (LegacySettledTypes);
//   - anything else (a type its last release did not write) is dead-lettered, saying why.

// LegacyFate is what becomes of one of the original's undelivered events.
type LegacyFate int

// The fates.
const (
	// LegacyDeliver: our handlers take it, as the original's worker would have.
	LegacyDeliver LegacyFate = iota + 1
	// LegacySettle: done without running a handler; the reason says why nothing is owed.
	LegacySettle
	// LegacyDeadLetter: not an event type of the original's last release.
	LegacyDeadLetter
)

// LegacyEffected is why a pending social event of the original's is settled: its server sent
// the activities (Follow, Undo, Accept, Reject, Block, Undo Block) when it wrote the event,
// each as a FederationDeliveryRequested event of its own (delivered), and its worker had nothing
// more to do; our handlers would send them a second time.
const LegacyEffected = "adopted from movies-diary: its server sent this event's activities when it wrote it " +
	"(their deliveries are events of their own); not repeated"

// LegacyUnconsumed is why an event nothing consumed, in the original or here, is settled.
const LegacyUnconsumed = "adopted from movies-diary: nothing consumes this event, there or here"

// LegacyUnknown is why an event whose type the original did not write is dead-lettered.
const LegacyUnknown = "adopted from movies-diary: not an event type of its last release, and nothing here handles it"

// legacyDelivered are the original's event types our worker handles as its worker did.
// FollowAccepted is delivered only when outgoing (a remote actor accepted a local user's
// follow: its outbox is imported).
var legacyDelivered = []string{
	"ReviewLogged", "ReviewUpdated", "ReviewDeleted", "MovieDiscovered", "MovieDeleted", "MovieEnrichmentRequested",
	"PersonEnrichmentRequested", "ImageStored", "PosterSynced", "SearchReindexRequested", "WatchlistEntryAdded",
	"WatchlistEntryRemoved", "GoalCreated", "GoalUpdated", "GoalDeleted", "UserUpdated", "UserDeleted", "UserAccountMoved",
	"WrapUpRequested", "FederationDeliveryRequested", "BackfillFollower", "FollowAccepted",
}

// legacySettled are the original's event types settled as done, with why. An incoming
// FollowAccepted (a local user accepted a follower) is among them: the Accept went out inline,
// and the follower's backfill is its own BackfillFollower event.
var legacySettled = map[string]string{
	"FollowRequested": LegacyEffected, "FollowAccepted": LegacyEffected, "FollowRejected": LegacyEffected,
	"Unfollowed": LegacyEffected, "FollowerRemoved": LegacyEffected, "ActorBlocked": LegacyEffected,
	"ActorUnblocked": LegacyEffected, "WatchEventIngested": LegacyUnconsumed, "WrapUpCompleted": LegacyUnconsumed,
}

// LegacyDeliveredTypes returns the original's event types our worker delivers (FollowAccepted
// only when outgoing).
func LegacyDeliveredTypes() []string { return slices.Clone(legacyDelivered) }

// LegacySettledTypes returns the original's event types settled as done (FollowAccepted only
// when incoming), each with why.
func LegacySettledTypes() map[string]string { return maps.Clone(legacySettled) }

// LegacyEventFate is the fate of one of the original's events of type typ, with the reason of a
// settled or dead-lettered one. outgoing tells a FollowAccepted's direction: a remote actor
// accepted a local user's follow.
func LegacyEventFate(typ string, outgoing bool) (LegacyFate, string) {
	if typ == "FollowAccepted" && outgoing {
		return LegacyDeliver, ""
	}
	if reason, ok := legacySettled[typ]; ok {
		return LegacySettle, reason
	}
	if slices.Contains(legacyDelivered, typ) {
		return LegacyDeliver, ""
	}
	return LegacyDeadLetter, LegacyUnknown
}
