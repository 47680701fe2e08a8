package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// MailLinks is what RunMailLinks needs of a store: the mailed links (password reset, e-mail
// confirmation) of issue 35.
type MailLinks interface {
	Outbox
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	UserByID(ctx context.Context, id uuid.UUID) (domain.User, error)
	DeleteUser(ctx context.Context, id uuid.UUID) error
	CreateSession(ctx context.Context, userID uuid.UUID, tokenHash string, now, expires time.Time) error
	RotateSession(ctx context.Context, oldHash, newHash string, now, expires time.Time) (uuid.UUID, error)
	RequestMailLink(ctx context.Context, l domain.MailLink, limit int, since time.Time) (uuid.UUID, error)
	MailLink(ctx context.Context, id uuid.UUID) (domain.MailLink, error)
	SetMailLinkToken(ctx context.Context, id uuid.UUID, tokenHash string) (bool, error)
	ResetPassword(ctx context.Context, tokenHash, passwordHash string, now time.Time) (uuid.UUID, error)
	ConfirmEmail(ctx context.Context, tokenHash string, now time.Time) error
	AdminEmails(ctx context.Context) ([]string, error)
}

// RunMailLinks runs the mailed links' cases against stores open makes.
func RunMailLinks(t *testing.T, open func(t *testing.T, faults *Faults) MailLinks) {
	ctx := context.Background()
	link := func(u domain.User, kind domain.MailLinkKind, email string, at time.Time) domain.MailLink {
		return domain.MailLink{UserID: u.ID, Kind: kind, Email: email, RequestedAt: at, ExpiresAt: at.Add(domain.MailLinkTTL)}
	}
	request := func(t *testing.T, s MailLinks, l domain.MailLink, limit int) uuid.UUID {
		t.Helper()
		id, err := s.RequestMailLink(ctx, l, limit, l.RequestedAt.Add(-time.Hour))
		must(t, err)
		return id
	}
	token := func(t *testing.T, s MailLinks, id uuid.UUID, hash string) {
		t.Helper()
		if ok, err := s.SetMailLinkToken(ctx, id, hash); err != nil || !ok {
			t.Fatalf("set token of %s: %v, %v", id, ok, err)
		}
	}

	t.Run("PasswordReset", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice := createUser(t, s, "alice")
		must(t, s.CreateSession(ctx, alice.ID, "session", t0, t0.Add(time.Hour)))
		before := events(t, s)
		first := request(t, s, link(alice, domain.MailPasswordReset, alice.Email, t0), 2)
		second := request(t, s, link(alice, domain.MailPasswordReset, alice.Email, t0.Add(time.Minute)), 2)
		if first == uuid.Nil || second == uuid.Nil || events(t, s) != before+2 {
			t.Fatalf("links %s %s, %d events", first, second, events(t, s)-before)
		}
		// The throttle: a third within the hour stores nothing, no event either.
		if id := request(t, s, link(alice, domain.MailPasswordReset, alice.Email, t0.Add(2*time.Minute)), 2); id != uuid.Nil ||
			events(t, s) != before+2 {
			t.Fatalf("throttled request stored %s", id)
		}
		l, err := s.MailLink(ctx, first)
		must(t, err)
		if l.UserID != alice.ID || l.Username != "alice" || l.Email != alice.Email || l.Kind != domain.MailPasswordReset ||
			!l.ExpiresAt.Equal(t0.Add(time.Hour)) || l.Used {
			t.Fatalf("link %+v", l)
		}
		// A retry's token replaces the earlier one.
		token(t, s, first, "h1")
		token(t, s, first, "h2")
		_, err = s.ResetPassword(ctx, "h1", "new-hash", t0.Add(time.Minute))
		wantKind(t, err, domain.KindForbidden, "")
		// Expired: refused, nothing changes.
		_, err = s.ResetPassword(ctx, "h2", "new-hash", t0.Add(time.Hour))
		wantKind(t, err, domain.KindForbidden, "")
		if u, _ := s.UserByID(ctx, alice.ID); u.PasswordHash != "hash-alice" {
			t.Fatalf("a refused reset set %q", u.PasswordHash)
		}
		id, err := s.ResetPassword(ctx, "h2", "new-hash", t0.Add(30*time.Minute))
		must(t, err)
		if u, _ := s.UserByID(ctx, alice.ID); id != alice.ID || u.PasswordHash != "new-hash" {
			t.Fatalf("reset %s: hash %q", id, u.PasswordHash)
		}
		if _, err := s.RotateSession(ctx, "session", "next", t0.Add(31*time.Minute), t0.Add(2*time.Hour)); err == nil {
			t.Error("a session from before the reset still rotates")
		}
		// Used once; the account's other reset link is spent with it.
		_, err = s.ResetPassword(ctx, "h2", "other-hash", t0.Add(31*time.Minute))
		wantKind(t, err, domain.KindForbidden, "")
		if ok, err := s.SetMailLinkToken(ctx, second, "h3"); err != nil || ok {
			t.Fatalf("the other link after the reset: %v, %v", ok, err)
		}
		if l, _ := s.MailLink(ctx, second); !l.Used {
			t.Error("the other link is not used")
		}
	})

	t.Run("EmailConfirmation", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		createUser(t, s, "root")
		before := events(t, s)
		u := newUser("carol")
		u.EmailUnconfirmed = true
		carol, err := s.CreateUser(ctx, u)
		must(t, err)
		if events(t, s) != before+2 { // UserRegistered, EmailConfirmationRequested
			t.Fatalf("a registration to confirm wrote %d events", events(t, s)-before)
		}
		if got, _ := s.UserByID(ctx, carol.ID); !got.EmailUnconfirmed {
			t.Fatal("the new address counts as confirmed")
		}
		createUser(t, s, "dave")
		id := request(t, s, link(carol, domain.MailEmailConfirmation, "carol.new@example.org", t0), 5)
		taken := request(t, s, link(carol, domain.MailEmailConfirmation, "dave@example.org", t0), 5)
		token(t, s, id, "c1")
		token(t, s, taken, "c2")
		// A reset token does not confirm, nor a confirmation token reset.
		_, err = s.ResetPassword(ctx, "c1", "x", t0)
		wantKind(t, err, domain.KindForbidden, "")
		must(t, s.ConfirmEmail(ctx, "c1", t0.Add(time.Minute)))
		if got, _ := s.UserByID(ctx, carol.ID); got.Email != "carol.new@example.org" || got.EmailUnconfirmed {
			t.Fatalf("after the confirmation: %q, unconfirmed %v", got.Email, got.EmailUnconfirmed)
		}
		wantKind(t, s.ConfirmEmail(ctx, "c1", t0.Add(time.Minute)), domain.KindForbidden, "")
		// An address another account has: refused, the link left unspent.
		wantKind(t, s.ConfirmEmail(ctx, "c2", t0.Add(time.Minute)), domain.KindInvalid, "")
		if l, _ := s.MailLink(ctx, taken); l.Used {
			t.Error("a refused confirmation spent its link")
		}
		if got, _ := s.UserByID(ctx, carol.ID); got.Email != "carol.new@example.org" {
			t.Fatalf("a refused confirmation set %q", got.Email)
		}
		// The account gone, its links go.
		must(t, s.DeleteUser(ctx, carol.ID))
		if _, err := s.MailLink(ctx, taken); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("a deleted account's link: %v", err)
		}
		admins, err := s.AdminEmails(ctx)
		must(t, err)
		if len(admins) != 1 || admins[0] != "root@example.org" {
			t.Fatalf("admins %v", admins)
		}
	})
}
