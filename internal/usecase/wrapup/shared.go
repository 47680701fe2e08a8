package wrapup

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// VisibilityStore keeps each user's choice to make their wrap-ups public, and finds the wrap-up
// of a year.
type VisibilityStore interface {
	// WrapUpsPublic reports the user's choice; a user who never chose keeps them private.
	WrapUpsPublic(ctx context.Context, user uuid.UUID) (bool, error)
	SetWrapUpsPublic(ctx context.Context, user uuid.UUID, public bool) error
	// WrapUpOfRange returns the live wrap-up of a user (nil: of the instance) over exactly
	// start to end; none is NotFound.
	WrapUpOfRange(ctx context.Context, user *uuid.UUID, start, end domain.Date) (domain.WrapUp, error)
}

// Public reports whether the caller's wrap-ups are public.
func (s *Service) Public(ctx context.Context, me uuid.UUID) (bool, error) {
	return s.store.WrapUpsPublic(ctx, me)
}

// SetPublic makes the caller's wrap-ups public (readable by anyone, signed in or not, at their
// year's address) or private again (their owner's and the admins' alone).
func (s *Service) SetPublic(ctx context.Context, me uuid.UUID, public bool) error {
	if _, err := s.store.UserByID(ctx, me); err != nil {
		return err
	}
	return s.store.SetWrapUpsPublic(ctx, me, public)
}

// Shared returns the wrap-up of a calendar year of a user, or (owner nil) of the instance, for
// a viewer (nil: not signed in) at its stable address. The rule (docs/adr/0003-public-wrapups.md):
// the instance's wrap-ups are public; a user's is readable by its owner and the admins, and by
// anyone once the owner made their wrap-ups public. To everyone else it does not exist: NotFound,
// the same answer as a year never wrapped up or an unknown user, so the answer leaks neither
// that a private wrap-up exists nor who has one. A report of an older schema is generated again
// as in Report.
func (s *Service) Shared(ctx context.Context, viewer, owner *uuid.UUID, year int) (domain.WrapUp, error) {
	missing := domain.NotFound("Entity not found: wrap-up of %d", year)
	if year < 1 || year > 9999 {
		return domain.WrapUp{}, missing
	}
	if owner != nil {
		ok, err := s.mayRead(ctx, viewer, *owner)
		if err != nil {
			return domain.WrapUp{}, err
		}
		if !ok {
			return domain.WrapUp{}, missing
		}
	}
	start := domain.NewDate(year, time.January, 1)
	end := domain.NewDate(year, time.December, 31)
	w, err := s.store.WrapUpOfRange(ctx, owner, start, end)
	if errors.Is(err, domain.ErrNotFound) {
		return domain.WrapUp{}, missing
	}
	if err != nil || w.Status != domain.WrapUpReady || IsCurrent(w.Report) {
		return w, err
	}
	if _, err := s.store.RegenerateWrapUp(ctx, w.ID); err != nil {
		return domain.WrapUp{}, err
	}
	return s.store.WrapUp(ctx, w.ID)
}

// mayRead says whether viewer may read owner's wrap-ups: their own, an admin's right, or the
// owner's choice. An unknown owner is false like a private one.
func (s *Service) mayRead(ctx context.Context, viewer *uuid.UUID, owner uuid.UUID) (bool, error) {
	if _, err := s.store.UserByID(ctx, owner); errors.Is(err, domain.ErrNotFound) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	if viewer != nil && (*viewer == owner || s.requireAdmin(ctx, *viewer) == nil) {
		return true, nil
	}
	return s.store.WrapUpsPublic(ctx, owner)
}

// SharedYears lists the years whose wrap-up of owner the viewer may read at its stable address
// (see Shared), newest first: none when the viewer may not read owner's wrap-ups at all.
func (s *Service) SharedYears(ctx context.Context, viewer *uuid.UUID, owner uuid.UUID) ([]int, error) {
	ok, err := s.mayRead(ctx, viewer, owner)
	if err != nil || !ok {
		return nil, err
	}
	list, err := s.store.WrapUps(ctx, owner)
	if err != nil {
		return nil, err
	}
	var years []int
	for _, w := range list {
		if y, ok := CalendarYear(w); ok && w.UserID != nil && *w.UserID == owner && w.Status != domain.WrapUpFailed {
			years = append(years, y)
		}
	}
	slices.Sort(years)
	slices.Reverse(years)
	return slices.Compact(years), nil
}

// CalendarYear is the year a wrap-up covers when its range is exactly one calendar year.
func CalendarYear(w domain.WrapUp) (int, bool) {
	y := w.StartDate.Time().Year()
	return y, w.StartDate == domain.NewDate(y, time.January, 1) && w.EndDate == domain.NewDate(y, time.December, 31)
}
