package activitypub_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/activitypub"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/federation"
)

// TestGoalNote: a goal is a Note Mastodon can show ("Goal for 2026: 50 movies" with the
// progress) whose id is the goal's URL, with the goal's numbers as properties.
func TestGoalNote(t *testing.T) {
	t.Parallel()
	u := activitypub.URLs{URLs: federation.URLs{Base: "https://diary.example"}}
	user := uuid.MustParse("0190a000-0000-7000-8000-0000000000aa")
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	note := u.GoalNote(domain.GoalProgress{Goal: domain.Goal{ID: uuid.New(), UserID: user, Year: 2026, TargetCount: 50,
		CreatedAt: created, UpdatedAt: created}, CurrentCount: 12})
	actor := "https://diary.example/users/" + user.String()
	if note["id"] != actor+"/goals/2026" || note["type"] != "Note" || note["attributedTo"] != actor ||
		note["goal"] != true || note["goalYear"] != 2026 || note["goalTarget"] != 50 || note["goalCurrent"] != 12 ||
		note["published"] != "2026-01-02T03:04:05Z" || note["updated"] != nil {
		t.Errorf("Note = %v", note)
	}
	if c, _ := note["content"].(string); !strings.HasPrefix(c, "<p>🎯 Goal for 2026: 50 movies (12 watched so far)</p>") {
		t.Errorf("content %q", c)
	}
}

// TestGoalsReachFollowers: a goal made, changed and deleted reaches a follower's server as a
// Create and an Update of the goal Note and a Delete of a Tombstone at the goal's URL.
func TestGoalsReachFollowers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newInstance(t, nil)
	alice := a.user("alice")
	r := newRemote(t)
	a.acceptRemoteFollower(alice, r.addUser("bob"))
	a.startWorker()
	t.Cleanup(func() {
		if t.Failed() {
			a.dump()
		}
	})
	if _, err := a.store.CreateGoal(ctx, domain.Goal{ID: uuid.New(), UserID: alice.ID, Year: 2026, TargetCount: 50,
		CreatedAt: time.Now(), UpdatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the Create reaches the follower", func() bool { return len(r.postsOf("Create")) == 1 })
	if _, err := a.store.UpdateGoal(ctx, alice.ID, 2026, 60); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the Update reaches the follower", func() bool { return len(r.postsOf("Update")) == 1 })
	if err := a.store.DeleteGoal(ctx, alice.ID, 2026); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the Delete reaches the follower", func() bool { return len(r.postsOf("Delete")) == 1 })
	url := a.actor(alice) + "/goals/2026"
	create, _ := r.postsOf("Create")[0].Activity["object"].(map[string]any)
	update, _ := r.postsOf("Update")[0].Activity["object"].(map[string]any)
	del, _ := r.postsOf("Delete")[0].Activity["object"].(map[string]any)
	if create["id"] != url || !strings.Contains(create["content"].(string), "Goal for 2026: 50 movies") {
		t.Errorf("Create object %v", create)
	}
	if update["id"] != url || update["goalTarget"] != float64(60) {
		t.Errorf("Update object %v", update)
	}
	if del["id"] != url || del["type"] != "Tombstone" {
		t.Errorf("Delete object %v", del)
	}
}
