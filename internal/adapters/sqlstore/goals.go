package sqlstore

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
)

// goalColumns selects a goal and its progress: the count of its user's reviews watched in its year
// (watched_at is ISO text, so the year is a string range the user/watched index answers).
func (s *Store) goalColumns() string {
	return `g.id, g.user_id, g.year, g.target_count, g.created_at, g.updated_at,
	(SELECT count(*) FROM reviews r WHERE r.user_id = g.user_id
		AND r.watched_at >= ` + s.d.PadYear("g.year") + ` AND r.watched_at < ` + s.d.PadYear("g.year + 1") + `) AS current_count`
}

// Goals lists a user's goals with their progress, the latest year first.
func (s *Store) Goals(ctx context.Context, user uuid.UUID) ([]domain.GoalProgress, error) {
	var rows []sqlrow.Goal
	if err := s.read.SelectContext(ctx, &rows, `SELECT `+s.goalColumns()+` FROM goals g WHERE g.user_id = ? ORDER BY g.year DESC`,
		user.String()); err != nil {
		return nil, fmt.Errorf("read goals: %w", err)
	}
	return sqlrow.CastRows(rows, sqlrow.Goal.Progress), nil
}

// Goal returns a user's goal of a year with its progress; none is KindNotFound.
func (s *Store) Goal(ctx context.Context, user uuid.UUID, year int) (domain.GoalProgress, error) {
	return s.goalWhere(ctx, s.read, `g.user_id = ? AND g.year = ?`, user.String(), year)
}

// GoalByID returns a goal with its progress (federation renders a goal object from it); none is
// KindNotFound.
func (s *Store) GoalByID(ctx context.Context, id uuid.UUID) (domain.GoalProgress, error) {
	return s.goalWhere(ctx, s.read, `g.id = ?`, id.String())
}

func (s *Store) goalWhere(ctx context.Context, q Queryer, where string, args ...any) (domain.GoalProgress, error) {
	var row sqlrow.Goal
	if err := sqlx.GetContext(ctx, q, &row, `SELECT `+s.goalColumns()+` FROM goals g WHERE `+where, args...); err != nil {
		return domain.GoalProgress{}, sqlrow.NotFound(err, "Entity not found: goal")
	}
	return row.Progress(), nil
}

// CreateGoal stores a new goal with GoalCreated in one transaction; a goal of the same user and
// year is KindInvalid (the original's 400).
func (s *Store) CreateGoal(ctx context.Context, g domain.Goal) (domain.GoalProgress, error) {
	err := s.writeWithEvents(ctx, "create goal", func(tx *Tx) ([]domain.Event, error) {
		_, err := tx.ExecContext(ctx, `INSERT INTO goals (id, user_id, year, target_count, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?)`, g.ID.String(), g.UserID.String(), g.Year, g.TargetCount,
			sqlrow.FormatTime(g.CreatedAt), sqlrow.FormatTime(g.UpdatedAt))
		if s.isUnique(err) {
			return nil, sqlrow.ErrGoalExists
		}
		if err != nil {
			return nil, err
		}
		return []domain.Event{domain.GoalCreated{GoalID: g.ID, UserID: g.UserID, Year: uint16(g.Year),
			TargetCount: uint32(g.TargetCount)}}, nil
	})
	if err != nil {
		return domain.GoalProgress{}, err
	}
	return s.GoalByID(ctx, g.ID)
}

// UpdateGoal sets the target of a user's goal of a year with GoalUpdated in one transaction; none
// is KindNotFound.
func (s *Store) UpdateGoal(ctx context.Context, user uuid.UUID, year, target int) (domain.GoalProgress, error) {
	var id uuid.UUID
	err := s.writeWithEvents(ctx, "update goal", func(tx *Tx) ([]domain.Event, error) {
		err := tx.GetContext(ctx, &id, `UPDATE goals SET target_count = ?, updated_at = ? WHERE user_id = ? AND year = ?
			RETURNING id`, target, sqlrow.FormatTime(s.now()), user.String(), year)
		if err != nil {
			return nil, sqlrow.NotFound(err, sqlrow.GoalMissing(year))
		}
		return []domain.Event{domain.GoalUpdated{GoalID: id, UserID: user, Year: uint16(year), TargetCount: uint32(target)}}, nil
	})
	if err != nil {
		return domain.GoalProgress{}, err
	}
	return s.GoalByID(ctx, id)
}

// DeleteGoal deletes a user's goal of a year with GoalDeleted in one transaction; none is
// KindNotFound.
func (s *Store) DeleteGoal(ctx context.Context, user uuid.UUID, year int) error {
	return s.writeWithEvents(ctx, "delete goal", func(tx *Tx) ([]domain.Event, error) {
		var id uuid.UUID
		err := tx.GetContext(ctx, &id, `DELETE FROM goals WHERE user_id = ? AND year = ? RETURNING id`, user.String(), year)
		if err != nil {
			return nil, sqlrow.NotFound(err, sqlrow.GoalMissing(year))
		}
		return []domain.Event{domain.GoalDeleted{GoalID: id, UserID: user, Year: uint16(year)}}, nil
	})
}
