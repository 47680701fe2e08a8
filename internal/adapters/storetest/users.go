package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/user"
)

// Users is what RunUsers needs of a store: the auth use case's accounts and sessions, the
// profile and the admin's user list.
type Users interface {
	Outbox
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	UserByEmail(ctx context.Context, email string) (domain.User, error)
	UserByID(ctx context.Context, id uuid.UUID) (domain.User, error)
	UserByUsername(ctx context.Context, username string) (domain.User, error)
	CreateSession(ctx context.Context, userID uuid.UUID, tokenHash string, now, expires time.Time) error
	RotateSession(ctx context.Context, oldHash, newHash string, now, expires time.Time) (uuid.UUID, error)
	DeleteSession(ctx context.Context, tokenHash string) error
	PruneSessions(ctx context.Context, now time.Time) (int64, error)
	UserSummaries(ctx context.Context) ([]user.Summary, error)
	UpdateProfile(ctx context.Context, id uuid.UUID, update func(p *domain.Profile) ([]domain.Event, error)) error
	UserStats(ctx context.Context, id uuid.UUID) (user.Stats, error)
	ActorKey(ctx context.Context, owner uuid.UUID) (privatePEM, publicPEM string, err error)
	Settings(ctx context.Context, user uuid.UUID) (domain.FederationSettings, error)
	SaveSettings(ctx context.Context, user uuid.UUID, fs domain.FederationSettings) error
	WrapUpsPublic(ctx context.Context, user uuid.UUID) (bool, error)
	SetWrapUpsPublic(ctx context.Context, user uuid.UUID, public bool) error
}

// t0 is the suite's clock reading: stores keep milliseconds.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// newUser is a user named name with e-mail name@example.org, created at t0, without a role: the
// store makes the first one the admin.
func newUser(name string) domain.User {
	return domain.User{ID: uuid.New(), Username: name, Email: name + "@example.org", PasswordHash: "hash-" + name,
		CreatedAt: t0}
}

// createUser stores a new user named name.
func createUser(t *testing.T, s interface {
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
}, name string) domain.User {
	t.Helper()
	u, err := s.CreateUser(context.Background(), newUser(name))
	must(t, err)
	return u
}

// RunUsers runs the users, sessions and profile cases against stores open makes.
func RunUsers(t *testing.T, open func(t *testing.T, faults *Faults) Users) {
	ctx := context.Background()

	t.Run("CreateAndRead", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		first := createUser(t, s, "alice")
		second := createUser(t, s, "bob")
		if first.Role != domain.RoleAdmin || second.Role != domain.RoleStandard {
			t.Fatalf("roles %v, %v: want the first user admin only", first.Role, second.Role)
		}
		for name, read := range map[string]func() (domain.User, error){
			"id":       func() (domain.User, error) { return s.UserByID(ctx, second.ID) },
			"email":    func() (domain.User, error) { return s.UserByEmail(ctx, "  BOB@Example.org ") },
			"username": func() (domain.User, error) { return s.UserByUsername(ctx, "bob") },
		} {
			got, err := read()
			must(t, err)
			if got.ID != second.ID || got.Username != "bob" || got.Email != "bob@example.org" ||
				got.PasswordHash != "hash-bob" || got.Role != domain.RoleStandard || !got.CreatedAt.Equal(t0) {
				t.Errorf("by %s: %+v, want %+v", name, got, second)
			}
		}
		admin, err := s.UserByID(ctx, first.ID)
		must(t, err)
		if admin.Role != domain.RoleAdmin {
			t.Errorf("stored role %v, want admin", admin.Role)
		}
	})

	t.Run("UniqueViolations", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		createUser(t, s, "alice")
		dupEmail := newUser("alice2")
		dupEmail.Email = "ALICE@example.org"
		_, err := s.CreateUser(ctx, dupEmail)
		wantKind(t, err, domain.KindInvalid, "Email already registered")
		dupName := newUser("alice")
		dupName.Email = "other@example.org"
		_, err = s.CreateUser(ctx, dupName)
		wantKind(t, err, domain.KindInvalid, "Username already taken")
		// Neither refused user left anything behind.
		if _, err := s.UserByID(ctx, dupName.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("refused user: %v", err)
		}
	})

	t.Run("NotFound", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		_, err := s.UserByID(ctx, uuid.New())
		wantKind(t, err, domain.KindNotFound, "Entity not found: user")
		_, err = s.UserByEmail(ctx, "nobody@example.org")
		wantKind(t, err, domain.KindNotFound, "")
		_, err = s.UserByUsername(ctx, "nobody")
		wantKind(t, err, domain.KindNotFound, "")
		err = s.UpdateProfile(ctx, uuid.New(), func(*domain.Profile) ([]domain.Event, error) { return nil, nil })
		wantKind(t, err, domain.KindNotFound, "")
	})

	t.Run("OneFirstAdmin", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		const n = 4
		users := make([]domain.User, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { users[i], errs[i] = s.CreateUser(ctx, newUser(fmt.Sprintf("racer%d", i))) })
		}
		wg.Wait()
		admins := 0
		for i := range n {
			must(t, errs[i])
			stored, err := s.UserByID(ctx, users[i].ID)
			must(t, err)
			if stored.Role == domain.RoleAdmin {
				admins++
			}
		}
		if admins != 1 {
			t.Fatalf("%d admins among %d concurrent first registrations, want 1", admins, n)
		}
	})

	t.Run("Sessions", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u := createUser(t, s, "alice")
		exp := t0.Add(time.Hour)
		must(t, s.CreateSession(ctx, u.ID, "h1", t0, exp))
		got, err := s.RotateSession(ctx, "h1", "h2", t0.Add(time.Minute), exp)
		must(t, err)
		if got != u.ID {
			t.Fatalf("rotate: user %v, want %v", got, u.ID)
		}
		got, err = s.RotateSession(ctx, "h2", "h3", t0.Add(2*time.Minute), exp)
		must(t, err)
		if got != u.ID {
			t.Fatalf("second rotation: user %v", got)
		}
		// h1 again is a replay: the family (h3, the live one, included) is revoked.
		_, err = s.RotateSession(ctx, "h1", "hx", t0.Add(3*time.Minute), exp)
		wantKind(t, err, domain.KindUnauthorized, "")
		_, err = s.RotateSession(ctx, "h3", "h4", t0.Add(4*time.Minute), exp)
		wantKind(t, err, domain.KindNotFound, "Invalid refresh token")
		_, err = s.RotateSession(ctx, "unknown", "h5", t0, exp)
		wantKind(t, err, domain.KindNotFound, "Invalid refresh token")

		// An expired token is refused and deleted.
		must(t, s.CreateSession(ctx, u.ID, "e1", t0, t0.Add(time.Minute)))
		_, err = s.RotateSession(ctx, "e1", "e2", t0.Add(time.Minute), exp)
		wantKind(t, err, domain.KindUnauthorized, "Refresh token expired")
		_, err = s.RotateSession(ctx, "e1", "e2", t0, exp)
		wantKind(t, err, domain.KindNotFound, "")

		// Logout ends the family, rotated tokens with the live one; an unknown token is no error.
		must(t, s.CreateSession(ctx, u.ID, "l1", t0, exp))
		_, err = s.RotateSession(ctx, "l1", "l2", t0, exp)
		must(t, err)
		must(t, s.DeleteSession(ctx, "l1"))
		_, err = s.RotateSession(ctx, "l2", "l3", t0, exp)
		wantKind(t, err, domain.KindNotFound, "")
		must(t, s.DeleteSession(ctx, "unknown"))

		// Pruning deletes exactly the expired sessions.
		must(t, s.CreateSession(ctx, u.ID, "p1", t0, t0.Add(time.Minute)))
		must(t, s.CreateSession(ctx, u.ID, "p2", t0, t0.Add(2*time.Minute)))
		must(t, s.CreateSession(ctx, u.ID, "p3", t0, t0.Add(time.Hour)))
		n, err := s.PruneSessions(ctx, t0.Add(2*time.Minute))
		must(t, err)
		if n != 2 {
			t.Fatalf("pruned %d sessions, want 2", n)
		}
		_, err = s.RotateSession(ctx, "p3", "p4", t0.Add(3*time.Minute), exp)
		must(t, err)
	})

	t.Run("ConcurrentRotation", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u := createUser(t, s, "alice")
		exp := t0.Add(time.Hour)
		must(t, s.CreateSession(ctx, u.ID, "c0", t0, exp))
		const n = 16
		errs := make([]error, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				_, errs[i] = s.RotateSession(ctx, "c0", fmt.Sprintf("c%d", i+1), t0, exp)
			})
		}
		close(start)
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case domain.KindOf(err) != domain.KindUnauthorized && domain.KindOf(err) != domain.KindNotFound:
				// The first loser is a replay that revokes the family; the later ones find nothing.
				t.Errorf("a losing rotation: %v, want unauthorized or not found", err)
			}
		}
		if won != 1 {
			t.Fatalf("%d of %d concurrent rotations of one token succeeded, want 1", won, n)
		}
	})

	t.Run("Summaries", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		for _, name := range []string{"carol", "alice", "bob"} {
			createUser(t, s, name)
		}
		list, err := s.UserSummaries(ctx)
		must(t, err)
		var names []string
		for _, sum := range list {
			names = append(names, sum.User.Username)
			if sum.TotalMovies != 0 || sum.AvgRating != nil || sum.FollowingCount != 0 || sum.FollowersCount != 0 {
				t.Errorf("%s: %+v, want zero counts", sum.User.Username, sum)
			}
		}
		if fmt.Sprint(names) != "[alice bob carol]" {
			t.Fatalf("summaries in order %v, want by username", names)
		}
		st, err := s.UserStats(ctx, list[0].User.ID)
		must(t, err)
		if st.TotalMovies != 0 || st.AvgRating != nil || st.FavoriteDirector != nil || st.MostActiveMonth != nil {
			t.Fatalf("stats of a user with no review: %+v", st)
		}
	})

	t.Run("ProfileWithEvents", func(t *testing.T) {
		t.Parallel()
		faults := &Faults{}
		s := open(t, faults)
		u := createUser(t, s, "alice")
		before := events(t, s)
		update := func(name string) func(p *domain.Profile) ([]domain.Event, error) {
			return func(p *domain.Profile) ([]domain.Event, error) {
				p.DisplayName, p.Bio = name, "bio of "+name
				p.Fields = []domain.ProfileField{{Name: "site", Value: "https://example.org/" + name}}
				return []domain.Event{domain.SearchReindexRequested{}, domain.SearchReindexRequested{}}, nil
			}
		}
		must(t, s.UpdateProfile(ctx, u.ID, update("Alice")))
		if n := events(t, s); n != before+2 {
			t.Fatalf("%d events after the update, want %d", n, before+2)
		}
		got, err := s.UserByID(ctx, u.ID)
		must(t, err)
		p := got.Profile
		if p.DisplayName != "Alice" || p.Bio != "bio of Alice" || len(p.Fields) != 1 || p.Fields[0].Value != "https://example.org/Alice" {
			t.Fatalf("stored profile %+v", p)
		}

		// An enqueue failure rolls the profile back with its events.
		faults.Set(true)
		err = s.UpdateProfile(ctx, u.ID, update("Mallory"))
		faults.Set(false)
		if !errors.Is(err, ErrInjected) {
			t.Fatalf("update with a failing enqueue: %v", err)
		}
		got, err = s.UserByID(ctx, u.ID)
		must(t, err)
		if got.Profile.DisplayName != "Alice" || got.Profile.Bio != "bio of Alice" {
			t.Fatalf("profile after the rolled-back update: %+v", got.Profile)
		}
		if n := events(t, s); n != before+2 {
			t.Fatalf("%d events after the rolled-back update, want %d", n, before+2)
		}

		// Clearing a field stores it as empty again.
		must(t, s.UpdateProfile(ctx, u.ID, func(p *domain.Profile) ([]domain.Event, error) {
			p.Bio, p.Fields = "", nil
			return nil, nil
		}))
		got, err = s.UserByID(ctx, u.ID)
		must(t, err)
		if got.Profile.Bio != "" || len(got.Profile.Fields) != 0 || got.Profile.DisplayName != "Alice" {
			t.Fatalf("profile after clearing: %+v", got.Profile)
		}
	})

	t.Run("ActorKey", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u := createUser(t, s, "alice")
		priv, pub, err := s.ActorKey(ctx, u.ID)
		must(t, err)
		priv2, pub2, err := s.ActorKey(ctx, u.ID)
		must(t, err)
		if priv == "" || pub == "" || priv != priv2 || pub != pub2 {
			t.Fatal("a user's actor key changed between reads")
		}
		// An owner with no key (the instance actor) gets one, once.
		owner := uuid.New()
		_, a, err := s.ActorKey(ctx, owner)
		must(t, err)
		_, b, err := s.ActorKey(ctx, owner)
		must(t, err)
		if a != b || a == pub {
			t.Fatal("the instance actor's key is not stable or not its own")
		}
	})

	t.Run("Settings", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u := createUser(t, s, "alice")
		fs, err := s.Settings(ctx, u.ID)
		must(t, err)
		if fs != domain.DefaultFederationSettings {
			t.Fatalf("settings never saved: %+v, want the defaults", fs)
		}
		if public, err := s.WrapUpsPublic(ctx, u.ID); err != nil || public {
			t.Fatalf("wrap-ups public by default: %v %v", public, err)
		}
		must(t, s.SetWrapUpsPublic(ctx, u.ID, true))
		if fs, err := s.Settings(ctx, u.ID); err != nil || fs != domain.DefaultFederationSettings {
			t.Fatalf("settings after the wrap-up choice: %+v %v", fs, err)
		}
		saved := domain.FederationSettings{Reviews: false, Watchlist: true, Goals: false}
		must(t, s.SaveSettings(ctx, u.ID, saved))
		if fs, err := s.Settings(ctx, u.ID); err != nil || fs != saved {
			t.Fatalf("saved settings read back as %+v %v", fs, err)
		}
		if public, err := s.WrapUpsPublic(ctx, u.ID); err != nil || !public {
			t.Fatalf("the wrap-up choice after saving settings: %v %v", public, err)
		}
		must(t, s.SetWrapUpsPublic(ctx, u.ID, false))
		if public, err := s.WrapUpsPublic(ctx, u.ID); err != nil || public {
			t.Fatalf("wrap-ups made private: %v %v", public, err)
		}
	})
}
