package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/domain"
)

// TestReviewsOfAuthorsWithSharedFollowers: users who all follow each other log, edit and
// delete reviews, and end and accept follows again, at once. Each review goes into every follower's feed and moves its count, in
// the order the follows come (another order per author), so two transactions can each hold a
// count the other wants; PostgreSQL then aborts one (deadlock_detected), which the store runs
// again instead of failing the request (make chaos with -store postgres saw such 500s).
func TestReviewsOfAuthorsWithSharedFollowers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := open(t)
	const n, rounds = 6, 12
	users := make([]uuid.UUID, n)
	for i := range users {
		u, err := s.CreateUser(ctx, domain.User{ID: uuid.New(), Username: fmt.Sprintf("user%d", i),
			Email: fmt.Sprintf("user%d@example.org", i), PasswordHash: "hash", Role: domain.RoleStandard, CreatedAt: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		users[i] = u.ID
	}
	db, err := sqlx.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Target t's followers are stored from t+1 on, so each author reaches them in its own order.
	for k := 1; k < n; k++ {
		for target := range users {
			if _, err := db.ExecContext(ctx, `INSERT INTO follows (follower_kind, follower_id, target_kind, target_id, status)
				VALUES ('local', $1, 'local', $2, 'accepted')`, users[(target+k)%n].String(), users[target].String()); err != nil {
				t.Fatal(err)
			}
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, n*rounds)
	for i, u := range users {
		wg.Go(func() {
			for j := range rounds {
				now := time.Now()
				r := domain.Review{ID: uuid.New(), UserID: u, Rating: 3, WatchedAt: now.AddDate(0, 0, -j), CreatedAt: now, UpdatedAt: now}
				if _, err := s.LogReview(ctx, r, domain.Movie{Title: fmt.Sprintf("Movie %d-%d", i, j), ReleaseYear: 2000}, nil); err != nil {
					errs <- err
					continue
				}
				if _, err := s.UpdateReview(ctx, r.ID, func(r *domain.Review) error {
					r.WatchedAt = r.WatchedAt.AddDate(0, 0, -1)
					return nil
				}); err != nil {
					errs <- err
				}
				if j%2 == 0 {
					if err := s.DeleteReview(ctx, r.ID, func(domain.Review) error { return nil }); err != nil {
						errs <- err
					}
				}
				// One follow ends and comes back: its feed rows leave and return.
				other := users[(i+1+j%(n-1))%n]
				if err := s.Unfollow(ctx, u, domain.LocalIdentity(other)); err != nil {
					errs <- err
					continue
				}
				if _, err := db.ExecContext(ctx, `INSERT INTO follows (follower_kind, follower_id, target_kind, target_id)
					VALUES ('local', $1, 'local', $2)`, u.String(), other.String()); err != nil {
					errs <- err
					continue
				}
				if err := s.AcceptFollower(ctx, other, domain.LocalIdentity(u)); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	// The store runs a deadlocked transaction again, so the requests above succeed either way;
	// the locks (lockFeedCounts, lockFollowers) are meant to leave PostgreSQL nothing to break.
	// A backend adds its deadlocks to pg_stat_database when it ends: end the store's, then read.
	s.Close()
	db.SetMaxIdleConns(1) // the test's own connections but one end too
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		var others int
		if err := db.GetContext(ctx, &others, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`); err != nil {
			t.Fatal(err)
		}
		if others == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections of the closed store are still open", others)
		}
		<-tick.C
	}
	var deadlocks int
	if err := db.GetContext(ctx, &deadlocks, `SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()`); err != nil {
		t.Fatal(err)
	}
	if deadlocks != 0 {
		t.Errorf("PostgreSQL broke %d deadlocks among the writes", deadlocks)
	}
}
