package auth

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// cheapAccounts has every e-mail's user, with a password hashed by cheap (64 KiB, one pass):
// every login checks a hash, as an attacker's guesses at real accounts do, without the test
// paying 19 MiB and two passes per check under the race detector.
type cheapAccounts struct{ Accounts }

var cheap = Hasher{Memory: 64, Time: 1, Threads: 1}

func (cheapAccounts) UserByEmail(_ context.Context, email string) (domain.User, error) {
	h, err := cheap.Hash("the right one")
	return domain.User{ID: uuid.New(), Email: email, PasswordHash: h}, err
}

func (cheapAccounts) CreateUser(_ context.Context, u domain.User) (domain.User, error) { return u, nil }

// TestConcurrentLoginsShareBoundedHashingSlots: 60 concurrent wrong guesses (each an argon2id
// check) never run more hashes at once than the gate's slots, so their memory is slots × the
// hasher's, whatever the load; every one still gets its answer. (An unknown account's login
// checks the dummy hash through the same gate.)
func TestConcurrentLoginsShareBoundedHashingSlots(t *testing.T) {
	s := New(cheapAccounts{}, nil, Config{Hasher: cheap, HashConcurrency: 3, HashWait: time.Minute})
	var wg sync.WaitGroup
	errs := make(chan error, 60)
	for range 60 {
		wg.Go(func() {
			_, err := s.Login(context.Background(), uuid.NewString()+"@example.test", "guess")
			if !errors.Is(err, domain.ErrUnauthorized) {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("login: %v, want bad credentials", err)
	}
	s.gate.mu.Lock()
	defer s.gate.mu.Unlock()
	if s.gate.peak > 3 || s.gate.peak < 1 {
		t.Errorf("%d hashes ran at once, want at most the 3 slots", s.gate.peak)
	}
}

// TestHashingBusyIsUnavailable: with every slot taken for longer than HashWait, a login and a
// registration are refused as unavailable with a Retry-After (the HTTP layer's 503), never
// queued without end.
func TestHashingBusyIsUnavailable(t *testing.T) {
	s := New(cheapAccounts{}, nil, Config{Registration: domain.RegistrationOpen, Hasher: cheap,
		HashConcurrency: 1, HashWait: 10 * time.Millisecond})
	s.gate.slots <- struct{}{} // a hash that does not end
	var un *domain.UnavailableError
	if _, err := s.Login(context.Background(), "a@example.test", "guess"); !errors.As(err, &un) || un.RetryAfterSeconds() < 1 {
		t.Errorf("login with every slot taken: %v, want unavailable with a Retry-After", err)
	}
	if _, err := s.Register(context.Background(), "b@example.test", "bee", "a long password", ""); !errors.As(err, &un) {
		t.Errorf("registration with every slot taken: %v, want unavailable", err)
	}
	<-s.gate.slots
	if _, err := s.Register(context.Background(), "b@example.test", "bee", "a long password", ""); err != nil {
		t.Errorf("registration once the slot is free: %v", err)
	}
}

// TestDefaultHashConcurrencyFitsTheMemory: the default never lets hashes together take more
// than their memory budget, and is at least one.
func TestDefaultHashConcurrencyFitsTheMemory(t *testing.T) {
	if n := DefaultHashConcurrency(DefaultHasher); n < 1 || int64(n)*int64(DefaultHasher.Memory)*1024 > hashMemoryDefault {
		t.Errorf("default %d slots × 19 MiB exceeds %d MiB", n, hashMemoryDefault>>20)
	}
	if n := DefaultHashConcurrency(Hasher{Memory: 1 << 22}); n != 1 {
		t.Errorf("a 4 GiB hasher gets %d slots, want 1", n)
	}
}
