package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Goals is what RunGoals needs of a store.
type Goals interface {
	Outbox
	reviewLogger
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	Goals(ctx context.Context, user uuid.UUID) ([]domain.GoalProgress, error)
	Goal(ctx context.Context, user uuid.UUID, year int) (domain.GoalProgress, error)
	GoalByID(ctx context.Context, id uuid.UUID) (domain.GoalProgress, error)
	CreateGoal(ctx context.Context, g domain.Goal) (domain.GoalProgress, error)
	UpdateGoal(ctx context.Context, user uuid.UUID, year, target int) (domain.GoalProgress, error)
	DeleteGoal(ctx context.Context, user uuid.UUID, year int) error
}

// RunGoals runs the yearly goal cases against stores open makes.
func RunGoals(t *testing.T, open func(t *testing.T, faults *Faults) Goals) {
	ctx := context.Background()

	t.Run("ProgressUniqueAndEvents", func(t *testing.T) {
		t.Parallel()
		faults := &Faults{}
		s := open(t, faults)
		alice := createUser(t, s, "alice")
		goal := func(year, target int) domain.Goal {
			return domain.Goal{ID: uuid.New(), UserID: alice.ID, Year: year, TargetCount: target, CreatedAt: t0, UpdatedAt: t0}
		}
		// Two viewings in 2026 (t0 is March 2026), one on the last day of 2025.
		logReview(t, s, newReview(alice.ID, 3, 0), tmdbMovie(1))
		logReview(t, s, newReview(alice.ID, 3, 5), tmdbMovie(2))
		last := newReview(alice.ID, 3, 0)
		last.WatchedAt = time.Date(2025, 12, 31, 23, 59, 0, 0, time.UTC)
		logReview(t, s, last, tmdbMovie(3))

		before := events(t, s)
		g, err := s.CreateGoal(ctx, goal(2026, 10))
		must(t, err)
		if g.CurrentCount != 2 || g.TargetCount != 10 || g.Year != 2026 || !g.CreatedAt.Equal(t0) {
			t.Fatalf("new goal %+v", g)
		}
		_, err = s.CreateGoal(ctx, goal(2025, 1))
		must(t, err)
		_, err = s.CreateGoal(ctx, goal(2026, 3))
		wantKind(t, err, domain.KindInvalid, "Goal already exists for this year")
		if n := events(t, s); n != before+2 {
			t.Fatalf("%d events after two goals and a refused one, want %d", n, before+2)
		}
		list, err := s.Goals(ctx, alice.ID)
		must(t, err)
		if len(list) != 2 || list[0].Year != 2026 || list[1].Year != 2025 || list[1].CurrentCount != 1 {
			t.Fatalf("goals %+v, want 2026 then 2025 with one viewing", list)
		}
		up, err := s.UpdateGoal(ctx, alice.ID, 2026, 20)
		must(t, err)
		if up.ID != g.ID || up.TargetCount != 20 || up.CurrentCount != 2 {
			t.Fatalf("updated goal %+v", up)
		}
		byID, err := s.GoalByID(ctx, g.ID)
		must(t, err)
		if byID.TargetCount != 20 {
			t.Fatalf("goal by id %+v", byID)
		}

		// A failing enqueue rolls back every goal write.
		before = events(t, s)
		faults.Set(true)
		_, createErr := s.CreateGoal(ctx, goal(2030, 1))
		_, updateErr := s.UpdateGoal(ctx, alice.ID, 2026, 99)
		deleteErr := s.DeleteGoal(ctx, alice.ID, 2025)
		faults.Set(false)
		for name, err := range map[string]error{"create": createErr, "update": updateErr, "delete": deleteErr} {
			if !errors.Is(err, ErrInjected) {
				t.Errorf("%s with a failing enqueue: %v", name, err)
			}
		}
		if list, err := s.Goals(ctx, alice.ID); err != nil || len(list) != 2 || list[0].TargetCount != 20 {
			t.Fatalf("goals after the failed writes: %+v %v", list, err)
		}
		if n := events(t, s); n != before {
			t.Fatalf("%d events after the failed writes, want %d", n, before)
		}

		must(t, s.DeleteGoal(ctx, alice.ID, 2025))
		_, err = s.Goal(ctx, alice.ID, 2025)
		wantKind(t, err, domain.KindNotFound, "Entity not found: goal")
		wantKind(t, s.DeleteGoal(ctx, alice.ID, 2025), domain.KindNotFound, "Entity not found: goal for 2025")
		_, err = s.UpdateGoal(ctx, alice.ID, 2024, 1)
		wantKind(t, err, domain.KindNotFound, "")
		_, err = s.GoalByID(ctx, uuid.New())
		wantKind(t, err, domain.KindNotFound, "")
	})
}
