// Package goal is the yearly viewing goals: a user sets how many movies they aim to watch in a
// year, and the progress is their reviews of that year. Each change commits its event
// (GoalCreated, GoalUpdated, GoalDeleted); federation publishes it when the user's
// federate_goals setting allows.
package goal

import (
	"context"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Store keeps goals; each write commits its event in the same transaction.
type Store interface {
	UserByID(ctx context.Context, id uuid.UUID) (domain.User, error)
	// Goals lists a user's goals with progress, the latest year first.
	Goals(ctx context.Context, user uuid.UUID) ([]domain.GoalProgress, error)
	// CreateGoal stores g with GoalCreated; a second goal for the year is KindInvalid.
	CreateGoal(ctx context.Context, g domain.Goal) (domain.GoalProgress, error)
	// UpdateGoal sets a goal's target with GoalUpdated; none is KindNotFound.
	UpdateGoal(ctx context.Context, user uuid.UUID, year, target int) (domain.GoalProgress, error)
	// DeleteGoal deletes a goal with GoalDeleted; none is KindNotFound.
	DeleteGoal(ctx context.Context, user uuid.UUID, year int) error
}

// Service runs the goal use cases.
type Service struct {
	store Store
	now   func() time.Time
}

// NewService builds the service.
func NewService(store Store) *Service { return &Service{store: store, now: time.Now} }

// List returns a user's goals with their progress; an unknown user is KindNotFound.
func (s *Service) List(ctx context.Context, user uuid.UUID) ([]domain.GoalProgress, error) {
	if _, err := s.store.UserByID(ctx, user); err != nil {
		return nil, err
	}
	return s.store.Goals(ctx, user)
}

// Create sets the caller's goal for a year.
func (s *Service) Create(ctx context.Context, me uuid.UUID, year, target int) (domain.GoalProgress, error) {
	if err := domain.ValidateGoalYear(year); err != nil {
		return domain.GoalProgress{}, err
	}
	if err := domain.ValidateGoalTarget(target); err != nil {
		return domain.GoalProgress{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return domain.GoalProgress{}, err
	}
	now := s.now().UTC()
	return s.store.CreateGoal(ctx, domain.Goal{ID: id, UserID: me, Year: year, TargetCount: target, CreatedAt: now, UpdatedAt: now})
}

// Update changes the target of the caller's goal for a year.
func (s *Service) Update(ctx context.Context, me uuid.UUID, year, target int) (domain.GoalProgress, error) {
	if err := domain.ValidateGoalTarget(target); err != nil {
		return domain.GoalProgress{}, err
	}
	return s.store.UpdateGoal(ctx, me, year, target)
}

// Delete removes the caller's goal for a year.
func (s *Service) Delete(ctx context.Context, me uuid.UUID, year int) error {
	return s.store.DeleteGoal(ctx, me, year)
}
