package nats

import (
	"fmt"
	"strings"
)

// subjects maps each event type to its subject suffix under NATS_SUBJECT_PREFIX. The suffixes are
// the original system's, so a mixed deployment (or an operator's subscription) keeps working.
var subjects = map[string]string{
	"ReviewLogged":                "review.logged",
	"ReviewUpdated":               "review.updated",
	"ReviewDeleted":               "review.deleted",
	"MovieDiscovered":             "movie.discovered",
	"MovieDeleted":                "movie.deleted",
	"UserUpdated":                 "user.updated",
	"MovieEnrichmentRequested":    "movie.enrichment.requested",
	"MovieResolutionRequested":    "movie.resolution.requested",
	"MoviesMerged":                "movies.merged",
	"MovieImagesRequested":        "movie.images.requested",
	"ImageStored":                 "image.stored",
	"WatchlistEntryAdded":         "watchlist.entry.added",
	"WatchlistEntryRemoved":       "watchlist.entry.removed",
	"FollowRequested":             "follow.requested",
	"FollowAccepted":              "follow.accepted",
	"FollowRejected":              "follow.rejected",
	"Unfollowed":                  "follow.unfollowed",
	"FollowerRemoved":             "follower.removed",
	"ActorBlocked":                "actor.blocked",
	"ActorUnblocked":              "actor.unblocked",
	"BackfillFollower":            "backfill.follower",
	"FederationDeliveryRequested": "federation.delivery.requested",
	"ActivityReceived":            "federation.activity.received",
	"WatchEventIngested":          "watch.event.ingested",
	"WrapUpRequested":             "wrapup.requested",
	"WrapUpCompleted":             "wrapup.completed",
	"SearchReindexRequested":      "search.reindex.requested",
	"PosterSynced":                "poster.synced",
	"GoalCreated":                 "goal.created",
	"GoalUpdated":                 "goal.updated",
	"GoalDeleted":                 "goal.deleted",
	"PersonEnrichmentRequested":   "person.enrichment.requested",
	"UserDeleted":                 "user.deleted",
	"UserAccountMoved":            "user.account.moved",
	"PasswordResetRequested":      "mail.password.reset.requested",
	"EmailConfirmationRequested":  "mail.email.confirmation.requested",
	"UserRegistered":              "user.registered",
}

// eventTypes is subjects inverted: suffix → event type.
var eventTypes = func() map[string]string {
	m := make(map[string]string, len(subjects))
	for typ, suffix := range subjects {
		m[suffix] = typ
	}
	return m
}()

// Subject is the subject an event of type eventType is published on.
func Subject(prefix, eventType string) (string, error) {
	suffix, ok := subjects[eventType]
	if !ok {
		return "", fmt.Errorf("no subject for event type %q", eventType)
	}
	return prefix + "." + suffix, nil
}

// Wildcard is the subject that covers every event under prefix: the stream's subject and the
// consumer's filter.
func Wildcard(prefix string) string { return prefix + ".>" }

// eventType is the event type a subject carries, or "" for a subject this build does not know
// (the payload's own "type" then decides).
func eventType(prefix, subject string) string {
	suffix, ok := strings.CutPrefix(subject, prefix+".")
	if !ok {
		return ""
	}
	return eventTypes[suffix]
}
