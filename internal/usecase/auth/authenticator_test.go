package auth_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/auth"
)

// TestAuthenticatorChecksTheUserExists: a verified token of a stored user passes; once the user
// is deleted it is refused after the existence TTL (sooner with Forget); a bad token is refused
// without a lookup.
func TestAuthenticatorChecksTheUserExists(t *testing.T) {
	t.Parallel()
	store := sqlitetest.Open(t, filepath.Join(t.TempDir(), "auth.db"))
	ctx := context.Background()
	u, err := store.CreateUser(ctx, domain.User{ID: uuid.New(), Username: "alice", Email: "alice@example.test",
		PasswordHash: "x", Role: domain.RoleStandard, CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	verify := func(tok string) (uuid.UUID, error) {
		if tok != "good" {
			return uuid.Nil, domain.Errorf(domain.KindUnauthorized, "bad token")
		}
		return u.ID, nil
	}
	a := auth.NewAuthenticator(verify, store, time.Minute, clock)
	if id, err := a.Authenticate(ctx, "good"); err != nil || id != u.ID {
		t.Fatalf("existing user: %v, %v", id, err)
	}
	if _, err := a.Authenticate(ctx, "bad"); !errors.Is(err, domain.ErrUnauthorized) {
		t.Errorf("bad token: %v, want unauthorized", err)
	}
	db, err := sql.Open("sqlite3", "file:"+store.Path()+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DELETE FROM users WHERE id = ?`, u.ID.String()); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Authenticate(ctx, "good"); err != nil {
		t.Errorf("within the TTL the remembered user still passes: %v", err)
	}
	a.Forget(u.ID)
	if _, err := a.Authenticate(ctx, "good"); !errors.Is(err, domain.ErrUnauthorized) {
		t.Errorf("deleted user after Forget: %v, want unauthorized", err)
	}
	b := auth.NewAuthenticator(verify, store, time.Minute, clock)
	if _, err := store.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Authenticate(ctx, "good"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM users WHERE id = ?`, u.ID.String()); err != nil {
		t.Fatal(err)
	}
	advance(time.Minute)
	if _, err := b.Authenticate(ctx, "good"); !errors.Is(err, domain.ErrUnauthorized) {
		t.Errorf("deleted user after the TTL: %v, want unauthorized", err)
	}
}
