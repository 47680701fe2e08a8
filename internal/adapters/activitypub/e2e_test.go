package activitypub_test

import (
	"encoding/json"
	"testing"
)

// TestTwoInstancesFederate runs two real instances (server routes and worker handlers, each
// with its own database and BASE_URL) on loopback: alice@A follows bob@B, bob accepts, bob's
// review reaches A's feed, his edit updates it there and his delete removes it; alice's
// unfollow removes her from bob's followers.
func TestTwoInstancesFederate(t *testing.T) {
	t.Parallel()
	a, b := newInstance(t, nil), newInstance(t, nil)
	a.startWorker()
	b.startWorker()
	alice, aliceToken := a.register("alice")
	bob, bobToken := b.register("bob")

	a.must(200, "POST", "/api/v1/social/follow", aliceToken, map[string]string{"handle": "bob@" + b.host()})
	eventually(t, "bob has a pending request from alice", func() bool {
		return len(actorURLs(t, b.must(200, "GET", "/api/v1/social/followers/pending", bobToken, nil))) == 1
	})
	b.must(200, "POST", "/api/v1/social/followers/accept", bobToken, map[string]string{"actor_url": a.actor(alice)})
	eventually(t, "alice follows bob", func() bool {
		return len(actorURLs(t, a.must(200, "GET", "/api/v1/social/following", aliceToken, nil))) == 1
	})

	var logged struct {
		Review struct {
			ID string `json:"id"`
		} `json:"review"`
	}
	if err := json.Unmarshal(b.must(201, "POST", "/api/v1/reviews", bobToken, map[string]any{
		"manual_title": "Heat", "manual_release_year": 1995, "rating": 4, "comment": "long and good", "watched_at": "2024-05-01",
	}), &logged); err != nil {
		t.Fatal(err)
	}
	feedRating := func() int {
		var feed struct {
			Items []struct {
				Review struct {
					Rating int `json:"rating"`
				} `json:"review"`
				IsFederated bool `json:"is_federated"`
			} `json:"items"`
		}
		if err := json.Unmarshal(a.must(200, "GET", "/api/v1/activity-feed", "", nil), &feed); err != nil {
			t.Fatal(err)
		}
		if len(feed.Items) != 1 || !feed.Items[0].IsFederated {
			return 0
		}
		return feed.Items[0].Review.Rating
	}
	eventually(t, "bob's review in alice's feed", func() bool { return feedRating() == 4 })
	b.must(200, "PATCH", "/api/v1/reviews/"+logged.Review.ID, bobToken, map[string]any{"rating": 2})
	eventually(t, "the edit reaches A", func() bool { return feedRating() == 2 })
	b.must(204, "DELETE", "/api/v1/reviews/"+logged.Review.ID, bobToken, nil)
	eventually(t, "the delete reaches A", func() bool { return feedRating() == 0 && a.count(`SELECT count(*) FROM reviews`) == 0 })

	a.must(200, "POST", "/api/v1/social/unfollow", aliceToken, map[string]string{"actor_url": b.actor(bob)})
	eventually(t, "alice leaves bob's followers", func() bool {
		return len(actorURLs(t, b.must(200, "GET", "/api/v1/social/followers", bobToken, nil))) == 0
	})
}

// actorURLs reads an ActorListResponse.
func actorURLs(t *testing.T, body []byte) []string {
	t.Helper()
	var list struct {
		Actors []struct {
			URL string `json:"url"`
		} `json:"actors"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range list.Actors {
		out = append(out, a.URL)
	}
	return out
}

// TestMutualFollowOneAnswerEachWay: alice@A follows bob@B and bob accepts; then bob follows
// alice and she accepts. Each instance sends exactly one Accept and backfills its user's review
// once. The original's single FollowAccepted made B answer alice's old Follow a second time and
// re-send bob's reviews with fresh ids when alice's Accept arrived.
func TestMutualFollowOneAnswerEachWay(t *testing.T) {
	t.Parallel()
	a, b := newInstance(t, nil), newInstance(t, nil)
	a.startWorker()
	b.startWorker()
	alice, aliceToken := a.register("alice")
	bob, bobToken := b.register("bob")
	for _, in := range []struct {
		in    *instance
		token string
	}{{a, aliceToken}, {b, bobToken}} {
		in.in.must(201, "POST", "/api/v1/reviews", in.token, map[string]any{
			"manual_title": "Heat", "manual_release_year": 1995, "rating": 4, "watched_at": "2024-05-01"})
	}
	follow := func(from *instance, fromToken string, to *instance, toToken, toName, fromActor string) {
		t.Helper()
		from.must(200, "POST", "/api/v1/social/follow", fromToken, map[string]string{"handle": toName + "@" + to.host()})
		eventually(t, toName+" has the request", func() bool {
			return len(actorURLs(t, to.must(200, "GET", "/api/v1/social/followers/pending", toToken, nil))) == 1
		})
		to.must(200, "POST", "/api/v1/social/followers/accept", toToken, map[string]string{"actor_url": fromActor})
		eventually(t, "the follow is accepted", func() bool {
			return len(actorURLs(t, from.must(200, "GET", "/api/v1/social/following", fromToken, nil))) == 1
		})
	}
	follow(a, aliceToken, b, bobToken, "bob", a.actor(alice))
	follow(b, bobToken, a, aliceToken, "alice", b.actor(bob))
	eventually(t, "both outboxes settle", func() bool { return a.settled() && b.settled() })
	for name, in := range map[string]*instance{"A": a, "B": b} {
		deliveries := func(typ string) int {
			return in.count(`SELECT count(*) FROM event_queue WHERE event_type = 'FederationDeliveryRequested'
				AND json_extract(payload, '$.data.activity_json.type') = ?`, typ)
		}
		if n := deliveries("Accept"); n != 1 {
			t.Errorf("%s sent %d Accepts, want 1", name, n)
		}
		if n := deliveries("Create"); n != 1 {
			t.Errorf("%s sent %d Creates, want its user's one review once (the backfill)", name, n)
		}
	}
}
