package httpapi_test

import (
	"slices"
	"testing"
)

// integrationWriteCases are the integration writes in the atomic_test.go style: each commits
// its data with its events, or neither.
func integrationWriteCases() []writeCase {
	return []writeCase{{
		name: "jellyfin webhook queues a watch",
		arrange: func(b *bundle) req {
			tok := b.webhookToken(b.register("alice"), map[string]any{"provider": "jellyfin"})
			return req{method: "POST", path: "/api/v1/webhooks/jellyfin", token: tok.Token, body: webhookFixture(b.t, "jellyfin-movie-stop.json")}
		},
		state:      `SELECT count(*) FROM watch_events`,
		wantStatus: 200, wantState: "1",
		wantEvents: []string{"WatchEventIngested"},
	}, {
		name: "plex webhook with auto-confirm logs the review",
		arrange: func(b *bundle) req {
			tok := b.webhookToken(b.register("alice"), map[string]any{"provider": "plex", "auto_confirm_rating": 5})
			body, ct := plexBody(b.t, webhookFixture(b.t, "plex-movie-scrobble.json"), true)
			return req{method: "POST", path: "/api/v1/webhooks/plex?token=" + tok.Token, body: body, header: map[string]string{"Content-Type": ct}}
		},
		state:      `SELECT (SELECT count(*) FROM watch_events) || '/' || (SELECT count(*) FROM reviews) || '/' || (SELECT count(*) FROM movies)`,
		wantStatus: 200, wantState: "1/1/1",
		wantEvents: []string{"WatchEventIngested", "MovieDiscovered", "MovieEnrichmentRequested", "ReviewLogged"},
	}, {
		name: "confirm a watch logs a review and closes it",
		arrange: func(b *bundle) req {
			a := b.register("alice")
			b.must(201, req{method: "POST", path: "/api/v1/watchlist", token: a.token,
				body: map[string]any{"external_metadata_id": "tmdb:949", "manual_title": "Heat", "manual_release_year": 1995}})
			id := b.queued(a, "jellyfin-movie-stop.json")
			return req{method: "POST", path: "/api/v1/watch-queue/confirm", token: a.token, body: map[string]any{
				"confirmations": []map[string]any{{"watch_event_id": id, "rating": 4}},
			}}
		},
		state: `SELECT (SELECT group_concat(status) FROM watch_events) || '/' || (SELECT count(*) FROM reviews) || '/' ||
			(SELECT count(*) FROM watchlist)`,
		wantStatus: 200, wantState: "confirmed/1/0",
		wantEvents: []string{"WatchlistEntryRemoved", "ReviewLogged"},
	}, {
		name: "confirm two watches in one request",
		arrange: func(b *bundle) req {
			a := b.register("alice")
			first := b.queued(a, "jellyfin-movie-stop.json")
			second := b.queued(a, "jellyfin-movie-stop-no-ids.json")
			return req{method: "POST", path: "/api/v1/watch-queue/confirm", token: a.token, body: map[string]any{
				"confirmations": []map[string]any{{"watch_event_id": first, "rating": 4}, {"watch_event_id": second, "rating": 2}},
			}}
		},
		state:      `SELECT (SELECT group_concat(status) FROM watch_events) || '/' || (SELECT count(*) FROM reviews)`,
		wantStatus: 200, wantState: "confirmed,confirmed/2",
		wantEvents: []string{"MovieDiscovered", "MovieEnrichmentRequested", "ReviewLogged", "ReviewLogged"},
	}}
}

// TestIntegrationWritesCommitWithTheirEvents is TestWritesCommitWithTheirEvents for the
// webhooks and the watch queue: with the event insert failing inside the transaction, the watch
// event and the review roll back with it and the client gets a 500 with the JSON envelope.
func TestIntegrationWritesCommitWithTheirEvents(t *testing.T) {
	t.Parallel()
	for _, c := range integrationWriteCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			t.Run("committed", func(t *testing.T) {
				b := setup(t)
				r := c.arrange(b)
				since := b.lastEvent()
				b.must(c.wantStatus, r)
				if got := b.scalar(c.state); got != c.wantState {
					t.Errorf("state after the write = %q, want %q", got, c.wantState)
				}
				if got := b.eventTypes(since); !slices.Equal(got, c.wantEvents) {
					t.Errorf("events = %v, want %v", got, c.wantEvents)
				}
			})
			t.Run("rolled back", func(t *testing.T) {
				b := setup(t)
				r := c.arrange(b)
				before, since := b.scalar(c.state), b.lastEvent()
				b.failEnqueue.Store(true)
				if msg := b.must(500, r).errorMessage(t); msg != "internal server error" {
					t.Errorf("500 message = %q, want %q", msg, "internal server error")
				}
				if got := b.scalar(c.state); got != before {
					t.Errorf("state after a failed event insert = %q, want it unchanged (%q)", got, before)
				}
				if got := b.eventTypes(since); len(got) != 0 {
					t.Errorf("events after a failed write = %v, want none", got)
				}
			})
		})
	}
}
