package domain

import (
	"time"

	"github.com/google/uuid"
)

// The bounds of a goal: the original accepted no year before 2020.
const (
	MinGoalYear = 2020
	MaxGoalYear = 9999
)

// Goal is a user's aim to watch TargetCount movies in Year; a user has at most one per year.
type Goal struct {
	ID          uuid.UUID
	UserID      uuid.UUID
	Year        int
	TargetCount int
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// GoalProgress is a goal with how many movies its user watched in its year so far.
type GoalProgress struct {
	Goal
	CurrentCount int
}

// Percentage is the share of the target reached, capped at 100.
func (g GoalProgress) Percentage() float64 {
	if g.TargetCount <= 0 {
		return 0
	}
	return min(100, float64(g.CurrentCount)*100/float64(g.TargetCount))
}

// Complete reports whether the target is reached.
func (g GoalProgress) Complete() bool { return g.CurrentCount >= g.TargetCount }

// ValidateGoalYear checks a goal's year.
func ValidateGoalYear(year int) error {
	if year < MinGoalYear {
		return Invalid("Goal year must be %d or later", MinGoalYear)
	}
	if year > MaxGoalYear {
		return Invalid("Goal year must be %d or earlier", MaxGoalYear)
	}
	return nil
}

// ValidateGoalTarget checks a goal's target count.
func ValidateGoalTarget(target int) error {
	if target < 1 {
		return Invalid("Target count must be at least 1")
	}
	if target > 100000 {
		return Invalid("Target count must be at most 100000")
	}
	return nil
}
