package wrapup_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/app/mediatest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/wrapup"
)

// TestSharedVisibility: a user's wrap-up of a year is readable by its owner and an admin always,
// by anyone else (signed in or not) only once the owner made their wrap-ups public, and is
// NotFound otherwise, exactly as a year with no wrap-up or an unknown user is; the instance's is
// readable by anyone.
func TestSharedVisibility(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := mediatest.New(t)
	s := wrapup.NewService(env.Store)
	owner, other, admin := env.AddUser("ann"), env.AddUser("bob"), env.AddUser("root")
	env.Exec(`UPDATE users SET is_admin = 1 WHERE id = ?`, admin.String())
	start, end, _ := domain.NewWrapUpRange("2024-01-01", "2024-12-31")
	for _, u := range []*uuid.UUID{&owner, nil} {
		if _, err := env.Store.RequestWrapUp(ctx, domain.WrapUp{ID: uuid.New(), UserID: u, Status: domain.WrapUpPending,
			StartDate: start, EndDate: end, CreatedAt: time.Now().UTC()}); err != nil {
			t.Fatal(err)
		}
	}
	nobody := uuid.New()
	check := func(when string, viewer, of *uuid.UUID, year int, readable bool) {
		t.Helper()
		w, err := s.Shared(ctx, viewer, of, year)
		switch {
		case readable && (err != nil || w.StartDate != start):
			t.Errorf("%s: %+v, %v; want the 2024 wrap-up", when, w, err)
		case !readable && !errors.Is(err, domain.ErrNotFound):
			t.Errorf("%s: %+v, %v; want NotFound", when, w, err)
		}
	}
	check("private, its owner", &owner, &owner, 2024, true)
	check("private, an admin", &admin, &owner, 2024, true)
	check("private, another user", &other, &owner, 2024, false)
	check("private, anonymous", nil, &owner, 2024, false)
	if y, err := s.SharedYears(ctx, &other, owner); err != nil || len(y) != 0 {
		t.Errorf("years of a private owner for another user: %v, %v", y, err)
	}
	if y, err := s.SharedYears(ctx, &owner, owner); err != nil || len(y) != 1 || y[0] != 2024 {
		t.Errorf("years for the owner: %v, %v", y, err)
	}
	check("no wrap-up that year, its owner", &owner, &owner, 2023, false)
	check("unknown user", &owner, &nobody, 2024, false)
	check("out of range year", &owner, &owner, 0, false)
	check("instance, anonymous", nil, nil, 2024, true)
	check("instance, a user", &other, nil, 2024, true)

	if pub, err := s.Public(ctx, owner); err != nil || pub {
		t.Fatalf("default visibility: public %v, %v; want private", pub, err)
	}
	// Saving the federation settings keeps the choice, and the choice keeps them.
	if err := env.Store.SaveSettings(ctx, owner, domain.FederationSettings{Reviews: false}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPublic(ctx, owner, true); err != nil {
		t.Fatal(err)
	}
	if fs, err := env.Store.Settings(ctx, owner); err != nil || fs.Reviews || fs.Watchlist {
		t.Errorf("federation settings after the visibility changed: %+v, %v", fs, err)
	}
	if pub, err := s.Public(ctx, owner); err != nil || !pub {
		t.Fatalf("after SetPublic(true): public %v, %v", pub, err)
	}
	years := func(viewer *uuid.UUID) []int {
		t.Helper()
		y, err := s.SharedYears(ctx, viewer, owner)
		if err != nil {
			t.Fatal(err)
		}
		return y
	}
	if y := years(nil); len(y) != 1 || y[0] != 2024 {
		t.Errorf("years of a public owner for a visitor: %v", y)
	}
	check("public, another user", &other, &owner, 2024, true)
	check("public, anonymous", nil, &owner, 2024, true)
	check("public, but no wrap-up that year", nil, &owner, 2023, false)
	check("someone else's public choice does not open another's", nil, &other, 2024, false)

	if err := s.SetPublic(ctx, owner, false); err != nil {
		t.Fatal(err)
	}
	check("private again, anonymous", nil, &owner, 2024, false)
	if err := s.SetPublic(ctx, nobody, true); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("SetPublic of an unknown user: %v", err)
	}
}
