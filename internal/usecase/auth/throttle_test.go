package auth_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/adapters/token"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/auth"
)

// TestLoginThrottlePerAccount: after the free attempts an account's logins wait an exponential
// back-off — a right password too, from anywhere — that never exceeds LoginBackoffMax, lifts on
// its own, and resets on success; other accounts are not affected.
func TestLoginThrottlePerAccount(t *testing.T) {
	t.Parallel()
	store := sqlitetest.Open(t, filepath.Join(t.TempDir(), "auth.db"))
	signer, err := token.New([]byte("test secret, thirty-two bytes..!"), 0)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	s := auth.New(store, signer, auth.Config{Registration: domain.RegistrationOpen, Hasher: auth.Hasher{Memory: 64, Time: 1, Threads: 1}, Now: clock})
	ctx := context.Background()
	for _, name := range []string{"alice", "bob"} {
		if _, err := s.Register(ctx, name+"@example.test", name, "password-"+name, ""); err != nil {
			t.Fatal(err)
		}
	}
	login := func(email, pw string) error { _, err := s.Login(ctx, email, pw); return err }
	for i := range auth.LoginFreeAttempts {
		if err := login("alice@example.test", "wrong"); !errors.Is(err, domain.ErrUnauthorized) {
			t.Fatalf("free attempt %d: %v, want bad credentials", i+1, err)
		}
	}
	var th *auth.ThrottledError
	if err := login("ALICE@example.test ", "password-alice"); !errors.As(err, &th) || th.RetryAfter != auth.LoginBackoffBase {
		t.Fatalf("right password during the back-off: %v, want throttled for %s", err, auth.LoginBackoffBase)
	}
	if err := login("bob@example.test", "password-bob"); err != nil {
		t.Errorf("another account: %v", err)
	}
	// The attacker keeps guessing as soon as allowed: the wait doubles up to the cap, no further.
	for range 20 {
		advance(time.Hour / 1000) // 3.6 s
		for {
			err := login("alice@example.test", "wrong")
			if errors.As(err, &th) {
				if th.RetryAfter > auth.LoginBackoffMax {
					t.Fatalf("wait %s exceeds the cap %s", th.RetryAfter, auth.LoginBackoffMax)
				}
				advance(th.RetryAfter)
				continue
			}
			break
		}
	}
	if err := login("alice@example.test", "password-alice"); !errors.As(err, &th) || th.RetryAfter != auth.LoginBackoffMax {
		t.Fatalf("after many guesses: %v, want a wait of the cap %s", err, auth.LoginBackoffMax)
	}
	advance(auth.LoginBackoffMax)
	if err := login("alice@example.test", "password-alice"); err != nil {
		t.Fatalf("the owner once the wait is over: %v", err)
	}
	// A success resets the count: the free attempts are free again.
	for i := range auth.LoginFreeAttempts - 1 {
		if err := login("alice@example.test", "wrong"); !errors.Is(err, domain.ErrUnauthorized) {
			t.Fatalf("attempt %d after a success: %v, want bad credentials", i+1, err)
		}
	}
}
