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
	SetEmail(ctx context.Context, id uuid.UUID, email string) error
	RenameUser(ctx context.Context, id uuid.UUID, username string) error
	UserByFormerUsername(ctx context.Context, username string, since time.Time) (domain.User, error)
	CreateSession(ctx context.Context, userID uuid.UUID, tokenHash string, now, expires time.Time) error
	RotateSession(ctx context.Context, oldHash, newHash string, now, expires time.Time) (uuid.UUID, error)
	LoginSessions(ctx context.Context, user uuid.UUID, now time.Time) ([]domain.LoginSession, error)
	EndLoginSession(ctx context.Context, user uuid.UUID, id string) error
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

	t.Run("EmailAndRename", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice, bob := createUser(t, s, "alice"), createUser(t, s, "bob")
		wantKind(t, s.SetEmail(ctx, bob.ID, "ALICE@example.org"), domain.KindInvalid, "Email already registered")
		must(t, s.SetEmail(ctx, bob.ID, "robert@example.org"))
		if u, _ := s.UserByID(ctx, bob.ID); u.Email != "robert@example.org" {
			t.Fatalf("e-mail %q", u.Email)
		}
		before := events(t, s)
		wantKind(t, s.RenameUser(ctx, bob.ID, "Alice"), domain.KindInvalid, "Username already taken")
		if n := events(t, s); n != before {
			t.Fatalf("a refused rename wrote %d events", n-before)
		}
		must(t, s.RenameUser(ctx, bob.ID, "robert"))
		if u, _ := s.UserByID(ctx, bob.ID); u.Username != "robert" {
			t.Fatalf("username %q", u.Username)
		}
		if n := events(t, s); n != before+1 {
			t.Fatalf("%d events after the rename, want 1 (UserUpdated)", n-before)
		}
		// WebFinger still finds bob by his old name (any case) for a while, and not after it.
		if u, err := s.UserByFormerUsername(ctx, "BOB", time.Now().Add(-time.Hour)); err != nil || u.ID != bob.ID {
			t.Fatalf("former name within the window: %+v %v", u, err)
		}
		_, err := s.UserByFormerUsername(ctx, "bob", time.Now().Add(time.Hour))
		wantKind(t, err, domain.KindNotFound, "")
		_, err = s.UserByFormerUsername(ctx, "alice", time.Time{})
		wantKind(t, err, domain.KindNotFound, "")
		// The old handle is bob's for good: nobody else takes it, he may take it back.
		wantKind(t, s.RenameUser(ctx, alice.ID, "bob"), domain.KindInvalid, "Username already taken")
		taker := newUser("bob")
		taker.Email = "another@example.org"
		_, err = s.CreateUser(ctx, taker)
		wantKind(t, err, domain.KindInvalid, "Username already taken")
		must(t, s.RenameUser(ctx, bob.ID, "bob"))
		wantKind(t, s.RenameUser(ctx, alice.ID, "robert"), domain.KindInvalid, "Username already taken")
		// A failing enqueue renames nothing.
		faultsRename(t, open)
	})

	t.Run("LoginSessions", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice, bob := createUser(t, s, "alice"), createUser(t, s, "bob")
		exp := t0.Add(time.Hour)
		must(t, s.CreateSession(ctx, alice.ID, "phone", t0, exp))
		must(t, s.CreateSession(ctx, alice.ID, "laptop", t0.Add(time.Minute), exp))
		must(t, s.CreateSession(ctx, bob.ID, "bobs", t0, exp))
		_, err := s.RotateSession(ctx, "phone", "phone2", t0.Add(2*time.Minute), exp.Add(2*time.Minute))
		must(t, err)
		list, err := s.LoginSessions(ctx, alice.ID, t0.Add(3*time.Minute))
		must(t, err)
		if len(list) != 2 || !list[0].StartedAt.Equal(t0) || !list[0].LastUsed.Equal(t0.Add(2*time.Minute)) ||
			!list[1].StartedAt.Equal(t0.Add(time.Minute)) {
			t.Fatalf("sessions %+v", list)
		}
		for _, x := range list {
			if x.ID == "phone" || x.ID == "phone2" || x.ID == "laptop" || len(x.ID) != 32 {
				t.Fatalf("session id %q", x.ID)
			}
		}
		wantKind(t, s.EndLoginSession(ctx, bob.ID, list[0].ID), domain.KindNotFound, "")
		must(t, s.EndLoginSession(ctx, alice.ID, list[0].ID))
		if _, err := s.RotateSession(ctx, "phone2", "phone3", t0.Add(4*time.Minute), exp); err == nil {
			t.Fatal("the ended session still refreshes")
		}
		if _, err := s.RotateSession(ctx, "laptop", "laptop2", t0.Add(4*time.Minute), exp); err != nil {
			t.Fatalf("the other session: %v", err)
		}
		if list, _ := s.LoginSessions(ctx, alice.ID, t0.Add(5*time.Minute)); len(list) != 1 {
			t.Fatalf("%d sessions after ending one, want 1", len(list))
		}
		if list, _ := s.LoginSessions(ctx, alice.ID, exp.Add(time.Hour)); len(list) != 0 {
			t.Fatalf("%d expired sessions listed", len(list))
		}
	})
}

// faultsRename checks a rename whose event fails leaves the name and the reservations alone.
func faultsRename(t *testing.T, open func(t *testing.T, faults *Faults) Accounts) {
	t.Helper()
	ctx := context.Background()
	faults := &Faults{}
	s := open(t, faults)
	carol := createUser(t, s, "carol")
	faults.Set(true)
	err := s.RenameUser(ctx, carol.ID, "caroline")
	faults.Set(false)
	if !errors.Is(err, ErrInjected) {
		t.Fatalf("rename with a failing enqueue: %v", err)
	}
	if u, _ := s.UserByID(ctx, carol.ID); u.Username != "carol" {
		t.Fatalf("username %q after the failed rename", u.Username)
	}
	dave := createUser(t, s, "dave")
	must(t, s.RenameUser(ctx, dave.ID, "caroline"))
}
