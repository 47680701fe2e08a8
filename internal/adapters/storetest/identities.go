package storetest

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Identities is what RunIdentities needs of a store: single sign-on's links from a provider's
// (issuer, subject) to an account (issue 35).
type Identities interface {
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	UserByID(ctx context.Context, id uuid.UUID) (domain.User, error)
	DeleteUser(ctx context.Context, id uuid.UUID) error
	UserByIdentity(ctx context.Context, id domain.Identity) (domain.User, error)
	CreateUserWithIdentity(ctx context.Context, u domain.User, id domain.Identity) (domain.User, error)
	LinkIdentity(ctx context.Context, user uuid.UUID, id domain.Identity) error
	Identities(ctx context.Context, user uuid.UUID) ([]domain.Identity, error)
	UsernameTaken(ctx context.Context, username string) (bool, error)
}

// RunIdentities runs the identity cases against stores open makes.
func RunIdentities(t *testing.T, open func(t *testing.T, faults *Faults) Identities) {
	ctx := context.Background()
	idp := func(sub string) domain.Identity { return domain.Identity{Issuer: "https://id.example/", Subject: sub} }

	t.Run("CreateLinkAndFind", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		admin := createUser(t, s, "admin")
		u, err := s.CreateUserWithIdentity(ctx, newUser("sso"), idp("s1"))
		must(t, err)
		got, err := s.UserByIdentity(ctx, idp("s1"))
		if err != nil || got.ID != u.ID || got.Username != "sso" {
			t.Fatalf("UserByIdentity: %+v, %v; want %s", got, err, u.ID)
		}
		// Another issuer's same subject is another person.
		_, err = s.UserByIdentity(ctx, domain.Identity{Issuer: "https://other.example/", Subject: "s1"})
		wantKind(t, err, domain.KindNotFound, "")
		// A pair names one account: neither a second account nor a second link takes it, and
		// the refused creation leaves no account behind.
		_, err = s.CreateUserWithIdentity(ctx, newUser("twin"), idp("s1"))
		wantKind(t, err, domain.KindConflict, "")
		if taken, err := s.UsernameTaken(ctx, "twin"); err != nil || taken {
			t.Fatalf("the refused account exists: %v, %v", taken, err)
		}
		wantKind(t, s.LinkIdentity(ctx, admin.ID, idp("s1")), domain.KindConflict, "")
		wantKind(t, s.LinkIdentity(ctx, uuid.New(), idp("s2")), domain.KindNotFound, "")
		// An account may have several.
		must(t, s.LinkIdentity(ctx, admin.ID, idp("s2")))
		must(t, s.LinkIdentity(ctx, admin.ID, domain.Identity{Issuer: "https://other.example/", Subject: "s1"}))
		ids, err := s.Identities(ctx, admin.ID)
		if err != nil || len(ids) != 2 {
			t.Fatalf("admin's identities %v, %v; want 2", ids, err)
		}
	})

	t.Run("DeleteUnlinks", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		createUser(t, s, "admin")
		u, err := s.CreateUserWithIdentity(ctx, newUser("gone"), idp("s1"))
		must(t, err)
		must(t, s.DeleteUser(ctx, u.ID))
		_, err = s.UserByIdentity(ctx, idp("s1"))
		wantKind(t, err, domain.KindNotFound, "")
		// The person's next sign-in may make a new account, but not under the old name.
		taken, err := s.UsernameTaken(ctx, "GONE")
		if err != nil || !taken {
			t.Fatalf("a deleted account's username: taken %v, %v; want taken for good", taken, err)
		}
		_, err = s.CreateUserWithIdentity(ctx, newUser("gone2"), idp("s1"))
		must(t, err)
	})
}
