package postgres_test

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/postgres/pgtest"
	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/domain"
)

// TestAnOutageIsUnavailableWithoutConnectionDetails: with PostgreSQL down, a read fails as the
// database unavailable (the HTTP layer's 503 with Retry-After) — the first statement on a pooled
// connection the server dropped as well — and the
// message names neither the database, its user nor its socket; once PostgreSQL is back, the
// same store answers again.
func TestAnOutageIsUnavailableWithoutConnectionDetails(t *testing.T) {
	pgtest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := pgtest.StartDurable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	raw, err := srv.CreateDatabase(ctx, "outage_db")
	if err != nil {
		t.Fatal(err)
	}
	s, err := postgres.Open(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UserByID(ctx, uuid.New()); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("before the outage: %v", err)
	}
	if err := srv.Down(ctx, "fast"); err != nil {
		t.Fatal(err)
	}
	// The first statement runs on the pooled connection the server dropped (used within the
	// second, so database/sql does not ping it first): it too is unavailable, not a 500.
	var un *domain.UnavailableError
	_, err = s.UserByID(ctx, uuid.New())
	if !errors.As(err, &un) || un.RetryAfterSeconds() < 1 {
		t.Fatalf("the first statement during the outage: %v, want the database unavailable with a Retry-After", err)
	}
	_, err = s.UserByID(ctx, uuid.New())
	if !errors.As(err, &un) {
		t.Fatalf("the second statement during the outage: %v, want the database unavailable", err)
	}
	// A write, in a transaction, too.
	if _, err := s.CreateUser(ctx, domain.User{ID: uuid.New(), Username: "ann", Email: "ann@example.org", PasswordHash: "x"}); !errors.As(err, &un) {
		t.Fatalf("a write during the outage: %v, want the database unavailable", err)
	}
	u, _ := url.Parse(raw)
	for _, secret := range []string{"outage_db", u.User.Username(), u.Query().Get("host")} {
		if secret != "" && strings.Contains(un.Error(), secret) {
			t.Errorf("the message %q names %q", un.Error(), secret)
		}
	}
	if err := srv.Up(ctx); err != nil {
		t.Fatal(err)
	}
	deliverytest.Eventually(t, time.Minute, "the store answers again", func() bool {
		_, err := s.UserByID(ctx, uuid.New())
		return errors.Is(err, domain.ErrNotFound)
	})
}
