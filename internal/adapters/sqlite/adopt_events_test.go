package sqlite

import (
	"slices"
	"testing"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/enrichment"
	"moviesdiary/internal/usecase/federation"
	"moviesdiary/internal/usecase/image"
	"moviesdiary/internal/usecase/movie"
	"moviesdiary/internal/usecase/poster"
	"moviesdiary/internal/usecase/search"
	"moviesdiary/internal/usecase/wrapup"
)

// legacyEventTypes are the 30 event types the original's last release writes (its event
// catalogue, reference/anchor-events.md §1b).
var legacyEventTypes = []string{
	"ReviewLogged", "ReviewUpdated", "MovieDiscovered", "MovieDeleted", "UserUpdated", "ReviewDeleted",
	"MovieEnrichmentRequested", "PersonEnrichmentRequested", "ImageStored", "WatchlistEntryAdded", "WatchlistEntryRemoved",
	"FollowRequested", "FollowAccepted", "FollowRejected", "Unfollowed", "FollowerRemoved", "ActorBlocked", "ActorUnblocked",
	"BackfillFollower", "FederationDeliveryRequested", "WatchEventIngested", "WrapUpRequested", "WrapUpCompleted",
	"SearchReindexRequested", "PosterSynced", "GoalCreated", "GoalUpdated", "GoalDeleted", "UserDeleted", "UserAccountMoved",
}

// handledTypes are the event types the worker's handlers take (cmd/worker registers the
// use cases' handlers with these lists).
func handledTypes() []string {
	var all []string
	for _, ts := range [][]string{
		federation.OutboundTypes, federation.DeliverTypes, federation.InboundTypes, federation.BackfillTypes,
		federation.FollowTimeTypes, search.IndexTypes, search.CleanupTypes, search.ReindexTypes, wrapup.GeneratorTypes,
		poster.Types, poster.ImagesTypes, enrichment.MovieTypes, enrichment.PersonTypes, movie.ResolutionTypes,
		image.CleanupTypes, image.ThumbnailsTypes, image.ConversionTypes,
	} {
		all = append(all, ts...)
	}
	return all
}

// TestLegacyDeliveredTypesHaveHandlers: every event type of the original has a fate at
// adoption; a delivered one is decodable and taken by a handler of ours (the engine would
// otherwise settle it as done, silently); one settled because nothing consumes it is taken by
// none.
func TestLegacyDeliveredTypesHaveHandlers(t *testing.T) {
	t.Parallel()
	handled, ours := handledTypes(), domain.EventTypes()
	for _, typ := range legacyEventTypes {
		_, settled := legacySettled[typ]
		delivered := slices.Contains(legacyDelivered, typ)
		if !settled && !delivered {
			t.Errorf("%s: no fate at adoption (it would be dead-lettered as unknown)", typ)
		}
		if delivered && (!slices.Contains(handled, typ) || !slices.Contains(ours, typ)) {
			t.Errorf("%s: delivered at adoption, but no handler of ours takes it", typ)
		}
		if settled && legacySettled[typ] == legacyUnconsumed && slices.Contains(handled, typ) {
			t.Errorf("%s: settled as consumed by nothing here, but a handler takes it", typ)
		}
	}
	for _, typ := range append(slices.Clone(legacyDelivered), legacyTypesOf(legacySettled)...) {
		if !slices.Contains(legacyEventTypes, typ) {
			t.Errorf("%s: has a fate at adoption but is not an event type of the original", typ)
		}
	}
}

func legacyTypesOf(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
