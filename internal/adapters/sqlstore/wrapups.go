package sqlstore

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
)

// RequestWrapUp stores a Pending wrap-up with WrapUpRequested in one transaction. The unique
// index on live wrap-ups of a user and range decides: when it refuses the insert (ON CONFLICT
// DO NOTHING, which waits for a concurrent request of the same range to commit), the live
// record is returned and nothing is written. A violation would abort the transaction here, so
// the insert does not raise one.
func (s *Store) RequestWrapUp(ctx context.Context, w domain.WrapUp) (domain.WrapUp, error) {
	var out domain.WrapUp
	err := s.write(ctx, func(tx *Tx) error {
		var user any
		if w.UserID != nil {
			user = w.UserID.String()
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO wrapups (id, user_id, status, start_date, end_date, created_at)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, w.ID.String(), user, string(w.Status),
			w.StartDate.String(), w.EndDate.String(), sqlrow.FormatTime(w.CreatedAt))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			out, err = wrapUpWhere(ctx, tx, s.liveWrapUp(), user, w.StartDate.String(), w.EndDate.String())
			return err
		}
		out = w
		return s.enqueue(ctx, tx, domain.WrapUpRequested{WrapUpID: w.ID, UserID: w.UserID, StartDate: w.StartDate, EndDate: w.EndDate})
	})
	if err != nil {
		return domain.WrapUp{}, fmt.Errorf("request wrap-up: %w", err)
	}
	return out, nil
}

// WrapUp returns a wrap-up.
func (s *Store) WrapUp(ctx context.Context, id uuid.UUID) (domain.WrapUp, error) {
	return wrapUpWhere(ctx, s.read, `id = ?`, id.String())
}

// WrapUps lists a user's wrap-ups and the instance-wide ones, newest first.
func (s *Store) WrapUps(ctx context.Context, user uuid.UUID) ([]domain.WrapUp, error) {
	var rows []sqlrow.WrapUp
	if err := s.read.SelectContext(ctx, &rows, `SELECT `+sqlrow.WrapUpColumns+` FROM wrapups WHERE user_id = ? OR user_id IS NULL
		ORDER BY created_at DESC, id DESC`, user.String()); err != nil {
		return nil, fmt.Errorf("list wrap-ups: %w", err)
	}
	return sqlrow.MapRows(rows, sqlrow.WrapUp.WrapUp)
}

// DeleteWrapUp deletes a wrap-up.
func (s *Store) DeleteWrapUp(ctx context.Context, id uuid.UUID) error {
	return s.write(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM wrapups WHERE id = ?`, id.String())
		if err != nil {
			return fmt.Errorf("delete wrap-up: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return domain.NotFound("Entity not found: wrap-up %s", id)
		}
		return nil
	})
}

// wrapUpWhere returns the wrap-up selected by where, read through q.
func wrapUpWhere(ctx context.Context, q Queryer, where string, args ...any) (domain.WrapUp, error) {
	var row sqlrow.WrapUp
	if err := sqlx.GetContext(ctx, q, &row, `SELECT `+sqlrow.WrapUpColumns+` FROM wrapups WHERE `+where, args...); err != nil {
		return domain.WrapUp{}, sqlrow.NotFound(err, "Entity not found: wrap-up")
	}
	return row.WrapUp()
}

// WrapUpOfRange returns the live wrap-up (Pending, Generating or Ready) of a user, or (nil) of
// the instance, over exactly start to end: the unique index on live wrap-ups finds it.
func (s *Store) WrapUpOfRange(ctx context.Context, user *uuid.UUID, start, end domain.Date) (domain.WrapUp, error) {
	var key any
	if user != nil {
		key = user.String()
	}
	return wrapUpWhere(ctx, s.read, s.liveWrapUp(), key, start.String(), end.String())
}

// liveWrapUp selects the live wrap-up of a user id (or NULL: the instance's), a start and an end
// date, in the terms of the unique index idx_wrapups_live.
func (s *Store) liveWrapUp() string {
	return s.d.IfNull("user_id", "''") + ` = ` + s.d.IfNull("CAST(? AS TEXT)", "''") + ` AND start_date = ? AND end_date = ?
	AND status IN ('Pending', 'Generating', 'Ready')`
}
