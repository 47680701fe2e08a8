package storetest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// WrapUps is what RunWrapUps needs of a store.
type WrapUps interface {
	Outbox
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	RequestWrapUp(ctx context.Context, w domain.WrapUp) (domain.WrapUp, error)
	WrapUp(ctx context.Context, id uuid.UUID) (domain.WrapUp, error)
	WrapUps(ctx context.Context, user uuid.UUID) ([]domain.WrapUp, error)
	DeleteWrapUp(ctx context.Context, id uuid.UUID) error
	WrapUpOfRange(ctx context.Context, user *uuid.UUID, start, end domain.Date) (domain.WrapUp, error)
}

// RunWrapUps runs the wrap-up request cases against stores open makes.
func RunWrapUps(t *testing.T, open func(t *testing.T, faults *Faults) WrapUps) {
	ctx := context.Background()
	start, end, err := domain.NewWrapUpRange("2025-01-01", "2025-12-31")
	if err != nil {
		t.Fatal(err)
	}
	request := func(user *uuid.UUID, at time.Time) domain.WrapUp {
		return domain.WrapUp{ID: uuid.New(), UserID: user, Status: domain.WrapUpPending, StartDate: start, EndDate: end, CreatedAt: at}
	}

	t.Run("OneLivePerRange", func(t *testing.T) {
		t.Parallel()
		faults := &Faults{}
		s := open(t, faults)
		alice := createUser(t, s, "alice")
		mine, err := s.RequestWrapUp(ctx, request(&alice.ID, t0))
		must(t, err)
		again, err := s.RequestWrapUp(ctx, request(&alice.ID, t0.Add(time.Minute)))
		must(t, err)
		if again.ID != mine.ID {
			t.Fatalf("a second request of a live range made %v, want the live %v", again.ID, mine.ID)
		}
		instance, err := s.RequestWrapUp(ctx, request(nil, t0.Add(2*time.Minute)))
		must(t, err)
		if instance.ID == mine.ID || instance.UserID != nil {
			t.Fatalf("the instance's wrap-up %+v", instance)
		}
		instanceAgain, err := s.RequestWrapUp(ctx, request(nil, t0.Add(3*time.Minute)))
		must(t, err)
		if instanceAgain.ID != instance.ID {
			t.Fatal("a second instance request of a live range made another wrap-up")
		}
		if n := events(t, s); n != 2 {
			t.Fatalf("%d events, want 2 (one WrapUpRequested per new wrap-up)", n)
		}
		got, err := s.WrapUp(ctx, mine.ID)
		must(t, err)
		if got.Status != domain.WrapUpPending || got.StartDate != start || got.EndDate != end || !got.CreatedAt.Equal(t0) ||
			got.CompletedAt != nil || got.Report != nil || *got.UserID != alice.ID {
			t.Fatalf("stored wrap-up %+v", got)
		}
		for user, want := range map[*uuid.UUID]uuid.UUID{&alice.ID: mine.ID, nil: instance.ID} {
			live, err := s.WrapUpOfRange(ctx, user, start, end)
			must(t, err)
			if live.ID != want {
				t.Fatalf("live wrap-up of the range %v, want %v", live.ID, want)
			}
		}
		list, err := s.WrapUps(ctx, alice.ID)
		must(t, err)
		if len(list) != 2 || list[0].ID != instance.ID || list[1].ID != mine.ID {
			t.Fatalf("wrap-ups %+v, want the instance's then alice's", list)
		}

		// A failing enqueue stores nothing; deleting frees the range.
		must(t, s.DeleteWrapUp(ctx, mine.ID))
		faults.Set(true)
		_, err = s.RequestWrapUp(ctx, request(&alice.ID, t0))
		faults.Set(false)
		if !errors.Is(err, ErrInjected) {
			t.Fatalf("request with a failing enqueue: %v", err)
		}
		_, err = s.WrapUpOfRange(ctx, &alice.ID, start, end)
		wantKind(t, err, domain.KindNotFound, "")
		wantKind(t, s.DeleteWrapUp(ctx, mine.ID), domain.KindNotFound, "")
		_, err = s.WrapUp(ctx, mine.ID)
		wantKind(t, err, domain.KindNotFound, "Entity not found: wrap-up")
	})

	t.Run("ConcurrentRequests", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice := createUser(t, s, "alice")
		const n = 8
		got := make([]uuid.UUID, n)
		errs := make([]error, n)
		begin := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-begin
				var w domain.WrapUp
				w, errs[i] = s.RequestWrapUp(ctx, request(&alice.ID, t0))
				got[i] = w.ID
			})
		}
		close(begin)
		wg.Wait()
		for _, err := range errs {
			must(t, err)
		}
		if len(slices.Compact(slices.Clone(got))) != 1 {
			t.Fatalf("concurrent requests of one range made %v", got)
		}
		if c := events(t, s); c != 1 {
			t.Fatalf("%d events, want 1", c)
		}
	})
}

// DomainBlocks is what RunDomainBlocks needs of a store.
type DomainBlocks interface {
	BlockDomain(ctx context.Context, host, reason string) error
	UnblockDomain(ctx context.Context, host string) error
	DomainBlocks(ctx context.Context) ([]domain.DomainBlock, error)
	DomainBlocked(ctx context.Context, host string) (bool, error)
	BlockedDomains(ctx context.Context) ([]string, error)
}

// RunDomainBlocks runs the instance block cases against stores open makes.
func RunDomainBlocks(t *testing.T, open func(t *testing.T, faults *Faults) DomainBlocks) {
	ctx := context.Background()
	t.Run("BlockCheckUnblock", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		must(t, s.BlockDomain(ctx, "Spam.Example", "spam"))
		must(t, s.BlockDomain(ctx, "spam.example", "more spam"))
		must(t, s.BlockDomain(ctx, "abuse.test", ""))
		for host, want := range map[string]bool{"spam.example": true, "SPAM.example.": true, "a.b.spam.example:443": true,
			"notspam.example": false, "example": false, "abuse.test": true} {
			got, err := s.DomainBlocked(ctx, host)
			must(t, err)
			if got != want {
				t.Errorf("%s blocked: %v, want %v", host, got, want)
			}
		}
		blocks, err := s.DomainBlocks(ctx)
		must(t, err)
		if len(blocks) != 2 || blocks[0].Domain != "abuse.test" || blocks[0].Reason != "" ||
			blocks[1].Domain != "spam.example" || blocks[1].Reason != "more spam" {
			t.Fatalf("blocks %+v", blocks)
		}
		domains, err := s.BlockedDomains(ctx)
		must(t, err)
		if !slices.Equal(domains, []string{"abuse.test", "spam.example"}) {
			t.Fatalf("blocked domains %v", domains)
		}
		must(t, s.UnblockDomain(ctx, "abuse.test"))
		wantKind(t, s.UnblockDomain(ctx, "abuse.test"), domain.KindNotFound, "")
		if blocked, err := s.DomainBlocked(ctx, "abuse.test"); err != nil || blocked {
			t.Fatalf("an unblocked domain: %v %v", blocked, err)
		}
	})
}
