package sqlrow

import (
	"strconv"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Goal is a goals row with its progress.
type Goal struct {
	ID           uuid.UUID `db:"id"`
	UserID       uuid.UUID `db:"user_id"`
	Year         int       `db:"year"`
	TargetCount  int       `db:"target_count"`
	CreatedAt    string    `db:"created_at"`
	UpdatedAt    string    `db:"updated_at"`
	CurrentCount int       `db:"current_count"`
}

// Progress maps the row to the goal and its progress.
func (r Goal) Progress() domain.GoalProgress {
	g := domain.Goal{ID: r.ID, UserID: r.UserID, Year: r.Year, TargetCount: r.TargetCount}
	g.CreatedAt, _ = ParseTime(r.CreatedAt)
	g.UpdatedAt, _ = ParseTime(r.UpdatedAt)
	return domain.GoalProgress{Goal: g, CurrentCount: r.CurrentCount}
}

// ErrGoalExists answers a second goal for a year.
var ErrGoalExists = domain.Invalid("Goal already exists for this year")

// GoalMissing is the not-found message for a user's goal of year.
func GoalMissing(year int) string { return "Entity not found: goal for " + strconv.Itoa(year) }
