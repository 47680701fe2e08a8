package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Accounts is what RunAccounts needs of a store: registration's invites and approvals, the
// last-admin guard and the self-service account changes (issue 35).
type Accounts interface {
	Outbox
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	CreateInvitedUser(ctx context.Context, u domain.User, inviteHash string, now time.Time) (domain.User, error)
	CreateInvite(ctx context.Context, inv domain.Invite) error
	CountAdmins(ctx context.Context) (int, error)
	ApproveUser(ctx context.Context, id uuid.UUID) error
	UserByID(ctx context.Context, id uuid.UUID) (domain.User, error)
	SetUserRole(ctx context.Context, id uuid.UUID, role domain.Role) error
	DeleteUser(ctx context.Context, id uuid.UUID) error
}

// RunAccounts runs the account cases against stores open makes.
func RunAccounts(t *testing.T, open func(t *testing.T, faults *Faults) Accounts) {
	ctx := context.Background()

	t.Run("LastAdmin", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		// A one-user instance: its admin can be neither demoted nor deleted.
		alice := createUser(t, s, "alice")
		wantKind(t, s.SetUserRole(ctx, alice.ID, domain.RoleStandard), domain.KindConflict, "")
		wantKind(t, s.DeleteUser(ctx, alice.ID), domain.KindConflict, "")
		if n, err := s.CountAdmins(ctx); err != nil || n != 1 {
			t.Fatalf("admins %d, %v; want 1", n, err)
		}
		// With a second admin either may go, but not both.
		bob := createUser(t, s, "bob")
		must(t, s.SetUserRole(ctx, bob.ID, domain.RoleAdmin))
		must(t, s.SetUserRole(ctx, alice.ID, domain.RoleStandard))
		wantKind(t, s.DeleteUser(ctx, bob.ID), domain.KindConflict, "")
		must(t, s.DeleteUser(ctx, alice.ID))
		if u, err := s.UserByID(ctx, bob.ID); err != nil || u.Role != domain.RoleAdmin {
			t.Fatalf("bob: %+v, %v; want the admin", u, err)
		}
	})

	t.Run("Invites", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		now := t0
		must(t, s.CreateInvite(ctx, domain.Invite{TokenHash: "setup", Admin: true, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}))
		must(t, s.CreateInvite(ctx, domain.Invite{TokenHash: "old", CreatedAt: now, ExpiresAt: now.Add(time.Minute)}))
		admin := newUser("root")
		admin.Role = domain.RoleStandard
		got, err := s.CreateInvitedUser(ctx, admin, "setup", now)
		must(t, err)
		if got.Role != domain.RoleAdmin {
			t.Fatalf("the setup link made a %s", got.Role)
		}
		// Used once, expired, or unknown: refused, and nothing is created.
		for hash, at := range map[string]time.Time{"setup": now, "old": now.Add(time.Minute), "nope": now} {
			u := newUser("x" + hash)
			_, err := s.CreateInvitedUser(ctx, u, hash, at)
			wantKind(t, err, domain.KindForbidden, "")
			if _, err := s.UserByID(ctx, u.ID); !errors.Is(err, domain.ErrNotFound) {
				t.Fatalf("invite %q refused but the user exists: %v", hash, err)
			}
		}
		// A taken username does not spend the invite.
		must(t, s.CreateInvite(ctx, domain.Invite{TokenHash: "fresh", CreatedAt: now, ExpiresAt: now.Add(time.Hour)}))
		dup := newUser("root")
		dup.Email = "other@example.org"
		_, err = s.CreateInvitedUser(ctx, dup, "fresh", now)
		wantKind(t, err, domain.KindInvalid, "Username already taken")
		u, err := s.CreateInvitedUser(ctx, newUser("carol"), "fresh", now)
		must(t, err)
		if u.Role != domain.RoleStandard {
			t.Fatalf("a plain invite made a %s", u.Role)
		}
	})

	t.Run("Approval", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		createUser(t, s, "alice")
		p := newUser("pat")
		p.Pending = true
		_, err := s.CreateUser(ctx, p)
		must(t, err)
		if u, err := s.UserByID(ctx, p.ID); err != nil || !u.Pending {
			t.Fatalf("pending user %+v, %v", u, err)
		}
		must(t, s.ApproveUser(ctx, p.ID))
		if u, err := s.UserByID(ctx, p.ID); err != nil || u.Pending {
			t.Fatalf("approved user %+v, %v", u, err)
		}
		wantKind(t, s.ApproveUser(ctx, uuid.New()), domain.KindNotFound, "")
	})

	t.Run("DeletedNameNeverReissued", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		createUser(t, s, "alice")
		bob := createUser(t, s, "bob")
		must(t, s.DeleteUser(ctx, bob.ID))
		again := newUser("BOB")
		again.Email = "new-bob@example.org"
		_, err := s.CreateUser(ctx, again)
		wantKind(t, err, domain.KindInvalid, "Username already taken")
	})
}
