package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/review"
)

// GoalWrites is what RunGoalWrites needs of a store: the yearly goals with their progress and the
// reviews that make it.
type GoalWrites interface {
	Outbox
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	LogReview(ctx context.Context, r domain.Review, m domain.Movie, idem *review.Idempotency) (review.Logged, error)
	Goals(ctx context.Context, user uuid.UUID) ([]domain.GoalProgress, error)
	Goal(ctx context.Context, user uuid.UUID, year int) (domain.GoalProgress, error)
	GoalByID(ctx context.Context, id uuid.UUID) (domain.GoalProgress, error)
	CreateGoal(ctx context.Context, g domain.Goal) (domain.GoalProgress, error)
	UpdateGoal(ctx context.Context, user uuid.UUID, year, target int) (domain.GoalProgress, error)
	DeleteGoal(ctx context.Context, user uuid.UUID, year int) error
}

// newGoal is user's goal of year with target.
func newGoal(user uuid.UUID, year, target int) domain.Goal {
	return domain.Goal{ID: uuid.New(), UserID: user, Year: year, TargetCount: target, CreatedAt: t0, UpdatedAt: t0}
}

// RunGoalWrites runs the goal write cases (every write, its events and rollbacks, races) against stores open makes.
func RunGoalWrites(t *testing.T, open func(t *testing.T, faults *Faults) GoalWrites) {
	ctx := context.Background()

	t.Run("CreateUpdateDelete", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u, v := createUser(t, s, "alice"), createUser(t, s, "bob")
		watched := func(user uuid.UUID, at time.Time, n int) {
			r := domain.Review{ID: uuid.New(), UserID: user, Rating: 3, WatchedAt: at, CreatedAt: t0, UpdatedAt: t0}
			_, err := s.LogReview(ctx, r, tmdbMovie(n), nil)
			must(t, err)
		}
		watched(u.ID, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), 1)
		watched(u.ID, time.Date(2025, 12, 31, 23, 59, 0, 0, time.UTC), 2)
		watched(u.ID, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), 3)
		watched(v.ID, time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), 4)
		before := events(t, s)
		g, err := s.CreateGoal(ctx, newGoal(u.ID, 2025, 10))
		must(t, err)
		if g.CurrentCount != 2 || g.TargetCount != 10 || g.Year != 2025 || !g.CreatedAt.Equal(t0) || events(t, s) != before+1 {
			t.Fatalf("created %+v with %d events", g, events(t, s)-before)
		}
		_, err = s.CreateGoal(ctx, newGoal(u.ID, 2025, 5))
		wantKind(t, err, domain.KindInvalid, "Goal already exists for this year")
		if events(t, s) != before+1 {
			t.Fatal("a refused goal wrote an event")
		}
		_, err = s.CreateGoal(ctx, newGoal(u.ID, 2026, 3))
		must(t, err)
		list, err := s.Goals(ctx, u.ID)
		must(t, err)
		if len(list) != 2 || list[0].Year != 2026 || list[0].CurrentCount != 1 || list[1].Year != 2025 {
			t.Fatalf("goals %+v, want the latest year first", list)
		}
		if list, err = s.Goals(ctx, v.ID); err != nil || len(list) != 0 {
			t.Fatalf("bob's goals %+v, %v", list, err)
		}
		up, err := s.UpdateGoal(ctx, u.ID, 2025, 20)
		must(t, err)
		if up.ID != g.ID || up.TargetCount != 20 || up.CurrentCount != 2 || events(t, s) != before+3 {
			t.Fatalf("updated %+v, %d events", up, events(t, s)-before)
		}
		_, err = s.UpdateGoal(ctx, u.ID, 2030, 1)
		wantKind(t, err, domain.KindNotFound, "Entity not found: goal for 2030")
		byID, err := s.GoalByID(ctx, g.ID)
		must(t, err)
		if byID.TargetCount != 20 {
			t.Fatalf("by id %+v", byID)
		}
		must(t, s.DeleteGoal(ctx, u.ID, 2025))
		wantKind(t, s.DeleteGoal(ctx, u.ID, 2025), domain.KindNotFound, "Entity not found: goal for 2025")
		_, err = s.Goal(ctx, u.ID, 2025)
		wantKind(t, err, domain.KindNotFound, "Entity not found: goal")
		_, err = s.GoalByID(ctx, g.ID)
		wantKind(t, err, domain.KindNotFound, "")
		if events(t, s) != before+4 {
			t.Fatalf("%d events, want created twice, updated, deleted", events(t, s)-before)
		}
	})

	t.Run("WritesAtomicWithEvents", func(t *testing.T) {
		t.Parallel()
		faults := &Faults{}
		s := open(t, faults)
		u := createUser(t, s, "alice")
		faults.Set(true)
		if _, err := s.CreateGoal(ctx, newGoal(u.ID, 2025, 10)); err == nil {
			t.Fatal("goal created without its event")
		}
		faults.Set(false)
		_, err := s.Goal(ctx, u.ID, 2025)
		wantKind(t, err, domain.KindNotFound, "")
		_, err = s.CreateGoal(ctx, newGoal(u.ID, 2025, 10))
		must(t, err)
		faults.Set(true)
		if _, err := s.UpdateGoal(ctx, u.ID, 2025, 99); err == nil {
			t.Fatal("goal updated without its event")
		}
		if err := s.DeleteGoal(ctx, u.ID, 2025); err == nil {
			t.Fatal("goal deleted without its event")
		}
		faults.Set(false)
		g, err := s.Goal(ctx, u.ID, 2025)
		must(t, err)
		if g.TargetCount != 10 || events(t, s) != 1 {
			t.Fatalf("after failed writes %+v, %d events", g, events(t, s))
		}
	})

	t.Run("ConcurrentCreates", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u := createUser(t, s, "alice")
		const n = 8
		errs := make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				_, errs[i] = s.CreateGoal(ctx, newGoal(u.ID, 2025, i+1))
			})
		}
		close(start)
		wg.Wait()
		created := 0
		for _, err := range errs {
			if err == nil {
				created++
			} else {
				wantKind(t, err, domain.KindInvalid, "Goal already exists for this year")
			}
		}
		if created != 1 || events(t, s) != 1 {
			t.Fatalf("%d of %d concurrent creates succeeded (%d events), want 1", created, n, events(t, s))
		}
	})
}
