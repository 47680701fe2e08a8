// Package wrapup is the wrap-up use cases: an admin requests a viewing summary over a date range
// (the worker generates it), users read their own and the instance-wide ones.
package wrapup

import (
	"context"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Store is the storage of wrap-ups.
type Store interface {
	VisibilityStore
	UserByID(ctx context.Context, id uuid.UUID) (domain.User, error)
	// RequestWrapUp stores w as Pending with WrapUpRequested in one transaction, unless a live
	// (Pending, Generating or Ready) wrap-up of the same user and range exists: that one is
	// returned and nothing is written.
	RequestWrapUp(ctx context.Context, w domain.WrapUp) (domain.WrapUp, error)
	WrapUp(ctx context.Context, id uuid.UUID) (domain.WrapUp, error)
	// WrapUps lists a user's wrap-ups and the instance-wide ones, newest first.
	WrapUps(ctx context.Context, user uuid.UUID) ([]domain.WrapUp, error)
	DeleteWrapUp(ctx context.Context, id uuid.UUID) error
	// RegenerateWrapUp sends a Ready wrap-up whose report lacks CurrentSchemaKey back to
	// Pending with WrapUpRequested in one transaction; ok is false when it was not such a one.
	RegenerateWrapUp(ctx context.Context, id uuid.UUID) (ok bool, err error)
}

// Service runs the wrap-up use cases.
type Service struct {
	store Store
	now   func() time.Time
}

// NewService builds the service.
func NewService(store Store) *Service { return &Service{store: store, now: time.Now} }

// GenerateCommand asks for a wrap-up of one user, or (UserID nil) of the instance.
type GenerateCommand struct {
	Admin     uuid.UUID
	UserID    *uuid.UUID
	StartDate string
	EndDate   string
}

// Generate requests a wrap-up; only an admin may. A live one for the same user and range is
// returned instead of a duplicate.
func (s *Service) Generate(ctx context.Context, c GenerateCommand) (domain.WrapUp, error) {
	if err := s.requireAdmin(ctx, c.Admin); err != nil {
		return domain.WrapUp{}, err
	}
	start, end, err := domain.NewWrapUpRange(c.StartDate, c.EndDate)
	if err != nil {
		return domain.WrapUp{}, err
	}
	if c.UserID != nil {
		if _, err := s.store.UserByID(ctx, *c.UserID); err != nil {
			return domain.WrapUp{}, err
		}
	}
	id, err := uuid.NewV7()
	if err != nil {
		return domain.WrapUp{}, err
	}
	return s.store.RequestWrapUp(ctx, domain.WrapUp{
		ID: id, UserID: c.UserID, Status: domain.WrapUpPending, StartDate: start, EndDate: end,
		CreatedAt: s.now().UTC(),
	})
}

// Get returns a wrap-up the caller may read: their own, an instance-wide one, or any for an admin.
func (s *Service) Get(ctx context.Context, caller, id uuid.UUID) (domain.WrapUp, error) {
	w, err := s.store.WrapUp(ctx, id)
	if err != nil {
		return domain.WrapUp{}, err
	}
	if w.UserID == nil || *w.UserID == caller {
		return w, nil
	}
	if s.requireAdmin(ctx, caller) != nil {
		// Someone else's wrap-up does not exist for the caller.
		return domain.WrapUp{}, domain.NotFound("Entity not found: wrap-up %s", id)
	}
	return w, nil
}

// Report returns a wrap-up the caller may read, for its report. A Ready report stored by an
// older build, in another schema, is not served: the wrap-up goes back to Pending and is
// generated again (the original client cannot read the old field names), so it comes back
// Pending like one just requested.
func (s *Service) Report(ctx context.Context, caller, id uuid.UUID) (domain.WrapUp, error) {
	w, err := s.Get(ctx, caller, id)
	if err != nil || w.Status != domain.WrapUpReady || IsCurrent(w.Report) {
		return w, err
	}
	if _, err := s.store.RegenerateWrapUp(ctx, id); err != nil {
		return domain.WrapUp{}, err
	}
	return s.Get(ctx, caller, id)
}

// List returns the caller's wrap-ups and the instance-wide ones.
func (s *Service) List(ctx context.Context, caller uuid.UUID) ([]domain.WrapUp, error) {
	return s.store.WrapUps(ctx, caller)
}

// Delete removes a wrap-up; only an admin may.
func (s *Service) Delete(ctx context.Context, caller, id uuid.UUID) error {
	if err := s.requireAdmin(ctx, caller); err != nil {
		return err
	}
	return s.store.DeleteWrapUp(ctx, id)
}

func (s *Service) requireAdmin(ctx context.Context, id uuid.UUID) error {
	u, err := s.store.UserByID(ctx, id)
	if err != nil {
		if domain.KindOf(err) == domain.KindNotFound {
			return domain.Errorf(domain.KindUnauthorized, "Unauthorized: unknown user")
		}
		return err
	}
	if u.Role != domain.RoleAdmin {
		return domain.Forbidden("Forbidden: admin only")
	}
	return nil
}
