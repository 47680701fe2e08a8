package httpapi_test

import (
	"slices"
	"testing"
)

// writeCase is one write endpoint: arrange prepares the state and returns the request; state is
// a SQL query whose single value the write changes, so a failed write must leave it as it was.
type writeCase struct {
	name       string
	arrange    func(b *bundle) req
	state      string
	wantStatus int
	wantState  string
	wantEvents []string
}

func writeCases() []writeCase {
	manual := map[string]any{"manual_title": "Heat", "manual_release_year": 1995, "rating": 4, "watched_at": "2024-03-01"}
	return []writeCase{{
		name: "log review of a new movie with an external id",
		arrange: func(b *bundle) req {
			a := b.register("alice")
			return req{method: "POST", path: "/api/v1/reviews", token: a.token, body: map[string]any{
				"external_metadata_id": "tt0113277", "manual_title": "Heat", "manual_release_year": 1995,
				"rating": 5, "watched_at": "2024-03-01T20:30",
			}}
		},
		state:      `SELECT count(*) || '/' || (SELECT count(*) FROM movies) FROM reviews`,
		wantStatus: 201, wantState: "1/1",
		wantEvents: []string{"MovieDiscovered", "MovieEnrichmentRequested", "ReviewLogged"},
	}, {
		name: "log review of a movie on the watchlist removes it",
		arrange: func(b *bundle) req {
			a := b.register("alice")
			b.must(201, req{method: "POST", path: "/api/v1/watchlist", token: a.token,
				body: map[string]any{"manual_title": "Heat", "manual_release_year": 1995}})
			return req{method: "POST", path: "/api/v1/reviews", token: a.token, body: manual}
		},
		state:      `SELECT count(*) || '/' || (SELECT count(*) FROM watchlist) FROM reviews`,
		wantStatus: 201, wantState: "1/0",
		wantEvents: []string{"WatchlistEntryRemoved", "ReviewLogged"},
	}, {
		name: "edit review",
		arrange: func(b *bundle) req {
			a := b.register("alice")
			id, _ := b.logReview(a, "Heat", 3, "2024-03-01")
			return req{method: "PATCH", path: "/api/v1/reviews/" + id.String(), token: a.token,
				body: map[string]any{"rating": 5, "comment": "better the second time"}}
		},
		state:      `SELECT rating || '/' || ifnull(comment, '') FROM reviews`,
		wantStatus: 200, wantState: "5/better the second time",
		wantEvents: []string{"ReviewUpdated"},
	}, {
		name: "delete the last review of a movie deletes the movie",
		arrange: func(b *bundle) req {
			a := b.register("alice")
			id, _ := b.logReview(a, "Heat", 3, "2024-03-01")
			return req{method: "DELETE", path: "/api/v1/reviews/" + id.String(), token: a.token}
		},
		state:      `SELECT count(*) || '/' || (SELECT count(*) FROM movies) FROM reviews`,
		wantStatus: 204, wantState: "0/0",
		wantEvents: []string{"ReviewDeleted", "MovieDeleted"},
	}, {
		name: "add to watchlist",
		arrange: func(b *bundle) req {
			a := b.register("alice")
			return req{method: "POST", path: "/api/v1/watchlist", token: a.token,
				body: map[string]any{"external_metadata_id": "tmdb:949", "manual_title": "Heat", "manual_release_year": 1995}}
		},
		state:      `SELECT count(*) || '/' || (SELECT count(*) FROM movies) FROM watchlist`,
		wantStatus: 201, wantState: "1/1",
		wantEvents: []string{"MovieDiscovered", "MovieEnrichmentRequested", "WatchlistEntryAdded"},
	}, {
		name: "remove from watchlist",
		arrange: func(b *bundle) req {
			a := b.register("alice")
			_, movie := b.logReview(a, "Heat", 3, "2024-03-01")
			b.must(201, req{method: "POST", path: "/api/v1/watchlist", token: a.token, body: map[string]any{"movie_id": movie}})
			return req{method: "DELETE", path: "/api/v1/watchlist/" + movie.String(), token: a.token}
		},
		state:      `SELECT count(*) FROM watchlist`,
		wantStatus: 204, wantState: "0",
		wantEvents: []string{"WatchlistEntryRemoved"},
	}, {
		name: "follow",
		arrange: func(b *bundle) req {
			a, _ := b.register("alice"), b.register("bob")
			return req{method: "POST", path: "/api/v1/social/follow", token: a.token, body: map[string]any{"handle": "bob"}}
		},
		state:      `SELECT count(*) FROM follows WHERE status = 'pending'`,
		wantStatus: 200, wantState: "1",
		wantEvents: []string{"FollowRequested"},
	}, {
		name: "accept follower",
		arrange: func(b *bundle) req {
			a, bob := b.register("alice"), b.register("bob")
			b.must(200, req{method: "POST", path: "/api/v1/social/follow", token: a.token, body: map[string]any{"handle": "bob"}})
			return req{method: "POST", path: "/api/v1/social/followers/accept", token: bob.token,
				body: map[string]any{"actor_url": "http://diary.test/users/" + a.id.String()}}
		},
		state:      `SELECT group_concat(status) FROM follows`,
		wantStatus: 200, wantState: "accepted",
		wantEvents: []string{"FollowAccepted"},
	}, {
		name: "reject follower",
		arrange: func(b *bundle) req {
			a, bob := b.register("alice"), b.register("bob")
			b.must(200, req{method: "POST", path: "/api/v1/social/follow", token: a.token, body: map[string]any{"handle": "@bob@diary.test"}})
			return req{method: "POST", path: "/api/v1/social/followers/reject", token: bob.token,
				body: map[string]any{"actor_url": "local:" + a.id.String()}}
		},
		state:      `SELECT count(*) FROM follows`,
		wantStatus: 200, wantState: "0",
		wantEvents: []string{"FollowRejected"},
	}, {
		name: "unfollow",
		arrange: func(b *bundle) req {
			a, bob := b.register("alice"), b.register("bob")
			b.must(200, req{method: "POST", path: "/api/v1/social/follow", token: a.token, body: map[string]any{"handle": "bob"}})
			return req{method: "POST", path: "/api/v1/social/unfollow", token: a.token,
				body: map[string]any{"actor_url": "http://diary.test/users/" + bob.id.String()}}
		},
		state:      `SELECT count(*) FROM follows`,
		wantStatus: 200, wantState: "0",
		wantEvents: []string{"Unfollowed"},
	}, {
		name: "remove follower",
		arrange: func(b *bundle) req {
			a, bob := b.register("alice"), b.register("bob")
			b.must(200, req{method: "POST", path: "/api/v1/social/follow", token: a.token, body: map[string]any{"handle": "bob"}})
			url := "http://diary.test/users/" + a.id.String()
			b.must(200, req{method: "POST", path: "/api/v1/social/followers/accept", token: bob.token, body: map[string]any{"actor_url": url}})
			return req{method: "POST", path: "/api/v1/social/followers/remove", token: bob.token, body: map[string]any{"actor_url": url}}
		},
		state:      `SELECT count(*) FROM follows`,
		wantStatus: 200, wantState: "0",
		wantEvents: []string{"FollowerRemoved"},
	}, {
		name: "block ends follows",
		arrange: func(b *bundle) req {
			a, bob := b.register("alice"), b.register("bob")
			b.must(200, req{method: "POST", path: "/api/v1/social/follow", token: a.token, body: map[string]any{"handle": "bob"}})
			return req{method: "POST", path: "/api/v1/social/block", token: bob.token,
				body: map[string]any{"actor_url": "http://diary.test/users/" + a.id.String()}}
		},
		state:      `SELECT count(*) || '/' || (SELECT count(*) FROM follows) FROM blocks`,
		wantStatus: 204, wantState: "1/0",
		wantEvents: []string{"ActorBlocked"},
	}, {
		name: "unblock",
		arrange: func(b *bundle) req {
			a, bob := b.register("alice"), b.register("bob")
			url := "http://diary.test/users/" + a.id.String()
			b.must(204, req{method: "POST", path: "/api/v1/social/block", token: bob.token, body: map[string]any{"actor_url": url}})
			return req{method: "POST", path: "/api/v1/social/unblock", token: bob.token, body: map[string]any{"actor_url": url}}
		},
		state:      `SELECT count(*) FROM blocks`,
		wantStatus: 204, wantState: "0",
		wantEvents: []string{"ActorUnblocked"},
	}, {
		name: "sync poster",
		arrange: func(b *bundle) req {
			a := b.register("alice")
			var out struct {
				Movie struct{ ID string } `json:"movie"`
			}
			b.must(201, req{method: "POST", path: "/api/v1/reviews", token: a.token, body: map[string]any{
				"external_metadata_id": "tt0113277", "manual_title": "Heat", "manual_release_year": 1995,
				"rating": 5, "watched_at": "2024-03-01",
			}}).json(b.t, &out)
			return req{method: "POST", path: "/api/v1/movies/" + out.Movie.ID + "/sync-poster", token: a.token}
		},
		state:      `SELECT count(*) FROM event_queue WHERE event_type = 'MovieEnrichmentRequested'`,
		wantStatus: 202, wantState: "2",
		wantEvents: []string{"MovieEnrichmentRequested"},
	}, {
		name: "generate wrap-up",
		arrange: func(b *bundle) req {
			admin := b.register("alice")
			return req{method: "POST", path: "/api/v1/wrapups/generate", token: admin.token,
				body: map[string]any{"start_date": "2024-01-01", "end_date": "2024-12-31", "user_id": admin.id}}
		},
		state:      `SELECT count(*) || '/' || ifnull(max(status), '') FROM wrapups`,
		wantStatus: 200, wantState: "1/Pending",
		wantEvents: []string{"WrapUpRequested"},
	}}
}

// TestWritesCommitWithTheirEvents checks every write endpoint both ways: on success its data and
// its events are there together; when the event insert fails inside the transaction, the data is
// rolled back too and the client gets a 500 with the JSON envelope.
func TestWritesCommitWithTheirEvents(t *testing.T) {
	t.Parallel()
	for _, c := range append(writeCases(), areaWriteCases()...) {
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
				resp := b.must(500, r)
				if msg := resp.errorMessage(t); msg != "internal server error" {
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
