package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Credentials is what RunCredentials needs of a store: personal access tokens and two factors
// (issue 35).
type Credentials interface {
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	SetPassword(ctx context.Context, id uuid.UUID, hash string) error
	DeleteUser(ctx context.Context, id uuid.UUID) error

	CreateAccessToken(ctx context.Context, t domain.AccessToken) error
	AccessTokens(ctx context.Context, user uuid.UUID) ([]domain.AccessToken, error)
	AccessTokenByHash(ctx context.Context, hash string) (domain.AccessToken, error)
	TouchAccessToken(ctx context.Context, id uuid.UUID, now, since time.Time) error
	RevokeAccessToken(ctx context.Context, user, id uuid.UUID) error

	BeginTwoFactor(ctx context.Context, user uuid.UUID, secret string, now time.Time) error
	TwoFactor(ctx context.Context, user uuid.UUID) (domain.TwoFactor, error)
	EnableTwoFactor(ctx context.Context, user uuid.UUID, step int64, codeHashes []string, now time.Time) error
	ReplaceRecoveryCodes(ctx context.Context, user uuid.UUID, codeHashes []string) error
	UseTwoFactorStep(ctx context.Context, user uuid.UUID, step int64) (bool, error)
	UseRecoveryCode(ctx context.Context, user uuid.UUID, hash string, now time.Time) (bool, error)
	DisableTwoFactor(ctx context.Context, user uuid.UUID) error
}

// RunCredentials runs the access-token and two-factor cases against stores open makes.
func RunCredentials(t *testing.T, open func(t *testing.T, faults *Faults) Credentials) {
	ctx := context.Background()

	t.Run("AccessTokens", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		createUser(t, s, "root")
		alice, bob := createUser(t, s, "alice"), createUser(t, s, "bob")
		exp := t0.Add(time.Hour)
		cron := domain.AccessToken{ID: uuid.New(), UserID: alice.ID, Name: "cron", Scope: domain.ScopeWrite, Hash: "h-cron",
			CreatedAt: t0, ExpiresAt: &exp}
		must(t, s.CreateAccessToken(ctx, cron))
		must(t, s.CreateAccessToken(ctx, domain.AccessToken{ID: uuid.New(), UserID: alice.ID, Name: "later", Scope: domain.ScopeRead,
			Hash: "h-later", CreatedAt: t0.Add(time.Minute)}))
		must(t, s.CreateAccessToken(ctx, domain.AccessToken{ID: uuid.New(), UserID: bob.ID, Name: "bobs", Scope: domain.ScopeRead,
			Hash: "h-bob", CreatedAt: t0}))

		got, err := s.AccessTokenByHash(ctx, "h-cron")
		must(t, err)
		if got.ID != cron.ID || got.UserID != alice.ID || got.Scope != domain.ScopeWrite || got.ExpiresAt == nil ||
			!got.ExpiresAt.Equal(exp) || got.LastUsedAt != nil || !got.CreatedAt.Equal(t0) {
			t.Fatalf("by hash: %+v", got)
		}
		_, err = s.AccessTokenByHash(ctx, "nope")
		wantKind(t, err, domain.KindNotFound, "")
		list, err := s.AccessTokens(ctx, alice.ID)
		must(t, err)
		if len(list) != 2 || list[0].Name != "later" || list[1].Name != "cron" || list[0].ExpiresAt != nil {
			t.Fatalf("list %+v", list)
		}

		// The last use is written at most once per window.
		must(t, s.TouchAccessToken(ctx, cron.ID, t0.Add(2*time.Minute), t0.Add(time.Minute)))
		must(t, s.TouchAccessToken(ctx, cron.ID, t0.Add(2*time.Minute+30*time.Second), t0.Add(90*time.Second)))
		got, _ = s.AccessTokenByHash(ctx, "h-cron")
		if got.LastUsedAt == nil || !got.LastUsedAt.Equal(t0.Add(2*time.Minute)) {
			t.Fatalf("last used %v, want the first touch", got.LastUsedAt)
		}
		must(t, s.TouchAccessToken(ctx, cron.ID, t0.Add(4*time.Minute), t0.Add(3*time.Minute)))
		got, _ = s.AccessTokenByHash(ctx, "h-cron")
		if !got.LastUsedAt.Equal(t0.Add(4 * time.Minute)) {
			t.Fatalf("last used %v after the window", got.LastUsedAt)
		}

		// Revoking: only one's own; a password change keeps them; deleting the user takes them.
		wantKind(t, s.RevokeAccessToken(ctx, bob.ID, cron.ID), domain.KindNotFound, "")
		must(t, s.RevokeAccessToken(ctx, alice.ID, cron.ID))
		_, err = s.AccessTokenByHash(ctx, "h-cron")
		wantKind(t, err, domain.KindNotFound, "")
		wantKind(t, s.RevokeAccessToken(ctx, alice.ID, cron.ID), domain.KindNotFound, "")
		must(t, s.SetPassword(ctx, alice.ID, "another hash"))
		if _, err := s.AccessTokenByHash(ctx, "h-later"); err != nil {
			t.Fatalf("a password change revoked a token: %v", err)
		}
		must(t, s.DeleteUser(ctx, alice.ID))
		_, err = s.AccessTokenByHash(ctx, "h-later")
		wantKind(t, err, domain.KindNotFound, "")
		if _, err := s.AccessTokenByHash(ctx, "h-bob"); err != nil {
			t.Fatalf("another user's token went: %v", err)
		}
	})

	t.Run("TwoFactor", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		createUser(t, s, "root")
		alice := createUser(t, s, "alice")
		_, err := s.TwoFactor(ctx, alice.ID)
		wantKind(t, err, domain.KindNotFound, "")
		wantKind(t, s.EnableTwoFactor(ctx, alice.ID, 10, nil, t0), domain.KindNotFound, "")
		must(t, s.BeginTwoFactor(ctx, alice.ID, "FIRST", t0))
		must(t, s.BeginTwoFactor(ctx, alice.ID, "SECOND", t0)) // an unconfirmed one is replaced
		tf, err := s.TwoFactor(ctx, alice.ID)
		must(t, err)
		if tf.Secret != "SECOND" || tf.Enabled || tf.RecoveryLeft != 0 {
			t.Fatalf("pending %+v", tf)
		}
		if ok, err := s.UseTwoFactorStep(ctx, alice.ID, 11); err != nil || ok {
			t.Fatalf("a pending enrolment's step spent: %v, %v", ok, err)
		}
		must(t, s.EnableTwoFactor(ctx, alice.ID, 10, []string{"r1", "r2", "r3"}, t0))
		wantKind(t, s.EnableTwoFactor(ctx, alice.ID, 12, nil, t0), domain.KindConflict, "")
		wantKind(t, s.BeginTwoFactor(ctx, alice.ID, "THIRD", t0), domain.KindConflict, "")
		tf, _ = s.TwoFactor(ctx, alice.ID)
		if tf.Secret != "SECOND" || !tf.Enabled || tf.LastStep != 10 || tf.RecoveryLeft != 3 {
			t.Fatalf("enabled %+v", tf)
		}

		// A step works once, and no earlier one after it.
		for _, c := range []struct {
			step int64
			ok   bool
		}{{10, false}, {9, false}, {11, true}, {11, false}, {13, true}, {12, false}} {
			if ok, err := s.UseTwoFactorStep(ctx, alice.ID, c.step); err != nil || ok != c.ok {
				t.Fatalf("step %d: %v, %v; want %v", c.step, ok, err, c.ok)
			}
		}
		// Two requests with the same code at once: one passes.
		var wg sync.WaitGroup
		passed := make(chan bool, 8)
		for range 8 {
			wg.Go(func() {
				ok, err := s.UseTwoFactorStep(ctx, alice.ID, 20)
				if err != nil {
					t.Error(err)
				}
				passed <- ok
			})
		}
		wg.Wait()
		close(passed)
		n := 0
		for ok := range passed {
			if ok {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("one code passed %d times at once", n)
		}

		// Recovery codes work once each; new ones replace the old.
		if ok, err := s.UseRecoveryCode(ctx, alice.ID, "r2", t0); err != nil || !ok {
			t.Fatalf("r2: %v, %v", ok, err)
		}
		if ok, _ := s.UseRecoveryCode(ctx, alice.ID, "r2", t0); ok {
			t.Fatal("r2 worked twice")
		}
		if tf, _ := s.TwoFactor(ctx, alice.ID); tf.RecoveryLeft != 2 {
			t.Fatalf("%d codes left, want 2", tf.RecoveryLeft)
		}
		must(t, s.ReplaceRecoveryCodes(ctx, alice.ID, []string{"n1"}))
		if ok, _ := s.UseRecoveryCode(ctx, alice.ID, "r1", t0); ok {
			t.Fatal("a replaced code worked")
		}
		if tf, _ := s.TwoFactor(ctx, alice.ID); tf.RecoveryLeft != 1 {
			t.Fatalf("%d codes left, want 1", tf.RecoveryLeft)
		}

		// Off: everything goes, and a new enrolment may begin.
		must(t, s.DisableTwoFactor(ctx, alice.ID))
		_, err = s.TwoFactor(ctx, alice.ID)
		wantKind(t, err, domain.KindNotFound, "")
		if ok, _ := s.UseRecoveryCode(ctx, alice.ID, "n1", t0); ok {
			t.Fatal("a code outlived two factors")
		}
		wantKind(t, s.ReplaceRecoveryCodes(ctx, alice.ID, []string{"x"}), domain.KindNotFound, "")
		must(t, s.DisableTwoFactor(ctx, alice.ID))
		must(t, s.BeginTwoFactor(ctx, alice.ID, "AGAIN", t0))

		// Deleting the user takes their secret.
		must(t, s.EnableTwoFactor(ctx, alice.ID, 1, []string{"d1"}, t0))
		must(t, s.DeleteUser(ctx, alice.ID))
		_, err = s.TwoFactor(ctx, alice.ID)
		wantKind(t, err, domain.KindNotFound, "")
	})
}
