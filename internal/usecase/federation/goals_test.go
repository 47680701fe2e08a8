package federation_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/federation"
)

// TestGoalsFederate: a goal's creation, change and deletion go to the user's followers as a
// Create and an Update of the goal as it is now (target and progress) and a Delete of a
// Tombstone at the goal's URL, with ids derived from the event.
func TestGoalsFederate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.addUser("alice")
	b.store.followerInbox[alice.ID] = []string{"https://a.example/inbox"}
	goal := domain.GoalProgress{Goal: domain.Goal{ID: uuid.New(), UserID: alice.ID, Year: 2026, TargetCount: 50}, CurrentCount: 12}
	b.store.goals[goal.ID] = goal
	url := base + "/users/" + alice.ID.String() + "/goals/2026"
	for _, c := range []struct {
		event domain.Event
		kind  string
	}{
		{domain.GoalCreated{GoalID: goal.ID, UserID: alice.ID, Year: 2026, TargetCount: 50}, "Create"},
		{domain.GoalUpdated{GoalID: goal.ID, UserID: alice.ID, Year: 2026, TargetCount: 50}, "Update"},
		{domain.GoalDeleted{GoalID: goal.ID, UserID: alice.ID, Year: 2026}, "Delete"},
	} {
		eventID := uuid.NewString()
		n := len(b.store.published)
		if err := b.svc.Outbound(context.Background(), eventID, c.event); err != nil {
			t.Fatalf("%s: %v", c.event.EventType(), err)
		}
		if len(b.store.published) != n+1 {
			t.Fatalf("%s: %d publications, want 1", c.event.EventType(), len(b.store.published)-n)
		}
		p := b.store.published[n]
		if p.ActivityID != federation.ActivityID(base, eventID, c.kind) || p.Type != c.kind || p.ObjectID != url ||
			p.ActorID != alice.ID || len(p.Deliveries) != 1 {
			t.Errorf("%s: publication %s %s of %s by %s, %d deliveries", c.event.EventType(), p.ActivityID, p.Type,
				p.ObjectID, p.ActorID, len(p.Deliveries))
		}
		var a federation.Activity
		if err := json.Unmarshal(p.Activity, &a); err != nil {
			t.Fatal(err)
		}
		switch c.kind {
		case "Delete":
			if a.Object.Tombstone != url || a.Object.Goal != nil {
				t.Errorf("Delete carries %+v, want a Tombstone at %s", a.Object, url)
			}
		default:
			if a.Object.Goal == nil || a.Object.Goal.TargetCount != 50 || a.Object.Goal.CurrentCount != 12 || a.Object.Goal.Year != 2026 {
				t.Errorf("%s carries %+v, want the goal with its progress", c.kind, a.Object)
			}
		}
	}
}

// TestGoalsStayHomeWhenTheUserSaysSo: with federate_goals off no goal activity is published; a
// goal deleted before its GoalUpdated is handled has nothing to send; and unreadable settings
// fail the event (to be retried) rather than federating what the user may have turned off.
func TestGoalsStayHomeWhenTheUserSaysSo(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob := b.addUser("alice"), b.addUser("bob")
	b.store.followerInbox[alice.ID] = []string{"https://a.example/inbox"}
	b.store.followerInbox[bob.ID] = []string{"https://a.example/inbox"}
	b.store.settings[alice.ID] = domain.FederationSettings{Reviews: true, Watchlist: true, Goals: false}
	goal := domain.GoalProgress{Goal: domain.Goal{ID: uuid.New(), UserID: alice.ID, Year: 2026, TargetCount: 50}}
	b.store.goals[goal.ID] = goal
	ctx := context.Background()
	for _, e := range []domain.Event{
		domain.GoalCreated{GoalID: goal.ID, UserID: alice.ID, Year: 2026, TargetCount: 50},
		domain.GoalUpdated{GoalID: goal.ID, UserID: alice.ID, Year: 2026, TargetCount: 60},
		domain.GoalDeleted{GoalID: goal.ID, UserID: alice.ID, Year: 2026},
		domain.GoalUpdated{GoalID: uuid.New(), UserID: bob.ID, Year: 2026, TargetCount: 60}, // gone since
	} {
		if err := b.svc.Outbound(ctx, uuid.NewString(), e); err != nil {
			t.Fatalf("%s: %v", e.EventType(), err)
		}
	}
	if n := len(b.store.published); n != 0 {
		t.Fatalf("%d publications, want none", n)
	}
	b.store.settingsErr = context.DeadlineExceeded
	if err := b.svc.Outbound(ctx, uuid.NewString(), domain.GoalCreated{GoalID: goal.ID, UserID: alice.ID, Year: 2026}); err == nil {
		t.Fatal("unreadable settings: no error, want the event retried")
	}
}

// TestGoalTypesAreHandled: the outbound handler subscribes to the goal events.
func TestGoalTypesAreHandled(t *testing.T) {
	t.Parallel()
	for _, typ := range []string{"GoalCreated", "GoalUpdated", "GoalDeleted"} {
		found := false
		for _, o := range federation.OutboundTypes {
			found = found || o == typ
		}
		if !found {
			t.Errorf("%s is not in OutboundTypes", typ)
		}
	}
}
