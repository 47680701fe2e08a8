package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/review"
)

// UserAdmin is what RunUserAdmin needs of a store: the operator's account commands and the
// reads that show what a deleted account takes with it.
type UserAdmin interface {
	Outbox
	reviewLogger
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	UserByID(ctx context.Context, id uuid.UUID) (domain.User, error)
	CreateSession(ctx context.Context, userID uuid.UUID, tokenHash string, now, expires time.Time) error
	RotateSession(ctx context.Context, oldHash, newHash string, now, expires time.Time) (uuid.UUID, error)
	ListUsers(ctx context.Context) ([]domain.User, error)
	SetUserRole(ctx context.Context, id uuid.UUID, role domain.Role) error
	SetPassword(ctx context.Context, id uuid.UUID, hash string) error
	DeleteUser(ctx context.Context, id uuid.UUID) error
	Feed(ctx context.Context, sort review.Sort, p domain.Page) (domain.Paged[review.Entry], error)
	FollowingFeed(ctx context.Context, owner uuid.UUID, p domain.Page) (domain.Paged[review.Entry], error)
	Follow(ctx context.Context, follower uuid.UUID, target domain.SocialIdentity) error
	AcceptFollower(ctx context.Context, owner uuid.UUID, follower domain.SocialIdentity) error
	Followers(ctx context.Context, user uuid.UUID, pending bool) ([]domain.Actor, error)
}

// RunUserAdmin runs the operator's account cases against stores open makes.
func RunUserAdmin(t *testing.T, open func(t *testing.T, faults *Faults) UserAdmin) {
	ctx := context.Background()

	t.Run("ListRolePassword", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		var want []uuid.UUID
		for i, name := range []string{"carol", "alice", "bob"} {
			u := newUser(name)
			u.CreatedAt = t0.Add(time.Duration(i) * time.Minute)
			_, err := s.CreateUser(ctx, u)
			must(t, err)
			want = append(want, u.ID)
		}
		users, err := s.ListUsers(ctx)
		must(t, err)
		var got []uuid.UUID
		for _, u := range users {
			got = append(got, u.ID)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("users %v, want oldest first %v", got, want)
		}
		must(t, s.SetUserRole(ctx, want[1], domain.RoleAdmin))
		must(t, s.SetUserRole(ctx, want[0], domain.RoleStandard))
		for id, role := range map[uuid.UUID]domain.Role{want[0]: domain.RoleStandard, want[1]: domain.RoleAdmin} {
			u, err := s.UserByID(ctx, id)
			must(t, err)
			if u.Role != role {
				t.Errorf("role %v, want %v", u.Role, role)
			}
		}
		// A new password ends every session of the user, and only theirs.
		exp := t0.Add(time.Hour)
		must(t, s.CreateSession(ctx, want[2], "mine", t0, exp))
		must(t, s.CreateSession(ctx, want[1], "theirs", t0, exp))
		must(t, s.SetPassword(ctx, want[2], "new-hash"))
		u, err := s.UserByID(ctx, want[2])
		must(t, err)
		if u.PasswordHash != "new-hash" {
			t.Fatalf("password hash %q", u.PasswordHash)
		}
		_, err = s.RotateSession(ctx, "mine", "mine2", t0, exp)
		wantKind(t, err, domain.KindNotFound, "")
		_, err = s.RotateSession(ctx, "theirs", "theirs2", t0, exp)
		must(t, err)

		unknown := uuid.New()
		wantKind(t, s.SetUserRole(ctx, unknown, domain.RoleAdmin), domain.KindNotFound, "Entity not found: user")
		wantKind(t, s.SetPassword(ctx, unknown, "x"), domain.KindNotFound, "")
		wantKind(t, s.DeleteUser(ctx, unknown), domain.KindNotFound, "")
	})

	t.Run("DeleteUser", func(t *testing.T) {
		t.Parallel()
		faults := &Faults{}
		s := open(t, faults)
		alice, bob := createUser(t, s, "alice"), createUser(t, s, "bob")
		logReview(t, s, newReview(bob.ID, 3, 1), tmdbMovie(1))
		logReview(t, s, newReview(bob.ID, 4, 2), tmdbMovie(2))
		logReview(t, s, newReview(alice.ID, 5, 3), tmdbMovie(1))
		must(t, s.Follow(ctx, alice.ID, domain.LocalIdentity(bob.ID)))
		must(t, s.AcceptFollower(ctx, bob.ID, domain.LocalIdentity(alice.ID)))
		if p, err := s.FollowingFeed(ctx, alice.ID, page100); err != nil || p.Total != 2 {
			t.Fatalf("alice's following feed: %d, %v", p.Total, err)
		}

		// A failing enqueue keeps the account and everything it has.
		before := events(t, s)
		faults.Set(true)
		err := s.DeleteUser(ctx, bob.ID)
		faults.Set(false)
		if !errors.Is(err, ErrInjected) {
			t.Fatalf("delete with a failing enqueue: %v", err)
		}
		if _, err := s.UserByID(ctx, bob.ID); err != nil {
			t.Fatalf("the account of the failed delete: %v", err)
		}
		if n := (tester{t}).total(s.Feed(ctx, review.SortDateDesc, page100)); n != 3 || events(t, s) != before {
			t.Fatalf("after the failed delete: feed total %d, %d events (want 3, %d)", n, events(t, s), before)
		}

		must(t, s.DeleteUser(ctx, bob.ID))
		if _, err := s.UserByID(ctx, bob.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("the deleted account: %v", err)
		}
		if n := events(t, s); n != before+1 {
			t.Fatalf("%d events after the delete, want %d (UserDeleted)", n, before+1)
		}
		if n := (tester{t}).total(s.Feed(ctx, review.SortDateDesc, page100)); n != 1 {
			t.Fatalf("feed total %d after the delete, want 1", n)
		}
		if p, err := s.FollowingFeed(ctx, alice.ID, page100); err != nil || p.Total != 0 || len(p.Items) != 0 {
			t.Fatalf("alice's following feed after the delete: %d, %v", p.Total, err)
		}
		users, err := s.ListUsers(ctx)
		must(t, err)
		if len(users) != 1 || users[0].ID != alice.ID {
			t.Fatalf("users after the delete: %+v", users)
		}
	})
}
