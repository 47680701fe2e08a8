package activitypub_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/activitypub"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/federation"
)

// TestEveryActivityIDDerivesFromTheEvent: each kind of outbound activity (Create, Update,
// Delete, Follow, Undo, Accept, Reject, Block, Move, and the actor's Update and Delete) gets the id {BASE_URL}/activities/
// UUIDv5(event id/kind), and handling the same event again writes no new outbox row.
func TestEveryActivityIDDerivesFromTheEvent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newInstance(t, nil)
	alice := a.user("alice")
	r := newRemote(t)
	bob, carol, dave, eve := r.addUser("bob"), r.addUser("carol"), r.addUser("dave"), r.addUser("eve")
	a.acceptRemoteFollower(alice, bob)
	for _, actor := range []string{carol, dave, eve} {
		if _, err := a.fed.Actor(ctx, actor, true); err != nil {
			t.Fatal(err)
		}
	}
	review := a.logReview(alice, 4)
	movie := domain.MovieIDFor("tt0133093")
	ext := "tt0133093"
	goal, err := a.store.CreateGoal(ctx, domain.Goal{ID: uuid.New(), UserID: alice.ID, Year: 2026, TargetCount: 50})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		kind  string
		event domain.Event
	}{
		{"Create", domain.ReviewLogged{ReviewID: review, MovieID: movie, UserID: alice.ID, Rating: 4, WatchedAt: domain.UnixFrom(1)}},
		{"Update", domain.ReviewUpdated{ReviewID: review, MovieID: movie, UserID: alice.ID, Rating: 4, WatchedAt: domain.UnixFrom(1)}},
		{"Delete", domain.ReviewDeleted{ReviewID: uuid.New(), UserID: alice.ID}},
		{"Create", domain.WatchlistEntryAdded{UserID: alice.ID, MovieID: movie, MovieTitle: "The Matrix", ReleaseYear: 1999,
			ExternalMetadataID: &ext, AddedAt: domain.UnixFrom(1)}},
		{"Delete", domain.WatchlistEntryRemoved{UserID: alice.ID, MovieID: movie}},
		{"Follow", domain.FollowRequested{FollowerID: alice.ID, Target: domain.RemoteIdentity(carol)}},
		{"Undo", domain.Unfollowed{FollowerID: alice.ID, Target: domain.RemoteIdentity(carol)}},
		{"Accept", domain.FollowAccepted{OwnerID: alice.ID, Requester: domain.RemoteIdentity(bob)}},
		{"Reject", domain.FollowRejected{OwnerID: alice.ID, Requester: domain.RemoteIdentity(dave)}},
		{"Reject", domain.FollowerRemoved{OwnerID: alice.ID, Follower: domain.RemoteIdentity(bob)}},
		{"Block", domain.ActorBlocked{BlockerID: alice.ID, Target: domain.RemoteIdentity(eve)}},
		{"Undo", domain.ActorUnblocked{BlockerID: alice.ID, Target: domain.RemoteIdentity(eve)}},
		{"Move", domain.UserAccountMoved{UserID: alice.ID, NewActorURL: "https://elsewhere.example/users/alice"}},
		{"Update", domain.UserUpdated{UserID: alice.ID}},
		{"Create", domain.GoalCreated{GoalID: goal.ID, UserID: alice.ID, Year: 2026, TargetCount: 50}},
		{"Update", domain.GoalUpdated{GoalID: goal.ID, UserID: alice.ID, Year: 2026, TargetCount: 50}},
		{"Delete", domain.GoalDeleted{GoalID: goal.ID, UserID: alice.ID, Year: 2026}},
		{"Delete", domain.UserDeleted{UserID: alice.ID}},
	}
	for _, c := range cases {
		eventID, err := uuid.NewV7()
		if err != nil {
			t.Fatal(err)
		}
		run(t, a, activitypub.OutboundHandler, eventID.String(), c.event)
		rows := a.count(`SELECT count(*) FROM event_queue`)
		run(t, a, activitypub.OutboundHandler, eventID.String(), c.event) // the replay
		want := federation.ActivityID(a.base, eventID.String(), c.kind)
		if n := a.count(`SELECT count(*) FROM ap_activities WHERE id = ? AND type = ?`, want, c.kind); n != 1 {
			t.Errorf("%s: no %s with id %s", c.event.EventType(), c.kind, want)
		}
		if n := a.count(`SELECT count(*) FROM event_queue`); n != rows {
			t.Errorf("%s: the replay wrote %d outbox rows", c.event.EventType(), n-rows)
		}
	}
	if n := a.count(`SELECT count(*) FROM ap_activities`); n != len(cases) {
		t.Errorf("%d activities published, want %d (one per event, none per replay)", n, len(cases))
	}
}
