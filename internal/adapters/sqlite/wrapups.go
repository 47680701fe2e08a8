package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/domain"
)

const wrapUpColumns = `id, user_id, status, start_date, end_date, created_at, completed_at, error_message, report`

// RequestWrapUp stores a Pending wrap-up with WrapUpRequested in one transaction. The unique
// index on live wrap-ups of a user and range decides: when it refuses the insert, the live
// record is returned and nothing is written.
func (s *Store) RequestWrapUp(ctx context.Context, w domain.WrapUp) (domain.WrapUp, error) {
	var out domain.WrapUp
	err := s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
		var user any
		if w.UserID != nil {
			user = w.UserID.String()
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO wrapups (id, user_id, status, start_date, end_date, created_at)
			VALUES (?, ?, ?, ?, ?, ?)`, w.ID.String(), user, string(w.Status), w.StartDate.String(), w.EndDate.String(),
			formatTime(w.CreatedAt))
		if isUnique(err) {
			out, err = wrapUpWhere(ctx, tx, `ifnull(user_id, '') = ifnull(?, '') AND start_date = ? AND end_date = ?
				AND status IN ('Pending', 'Generating', 'Ready')`, user, w.StartDate.String(), w.EndDate.String())
			return err
		}
		if err != nil {
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
	rows, err := s.read.QueryContext(ctx, `SELECT `+wrapUpColumns+` FROM wrapups WHERE user_id = ? OR user_id IS NULL
		ORDER BY created_at DESC, id DESC`, user.String())
	if err != nil {
		return nil, fmt.Errorf("list wrap-ups: %w", err)
	}
	return scanAll(rows, func(rows *sql.Rows) (domain.WrapUp, error) { return scanWrapUp(rows) })
}

// DeleteWrapUp deletes a wrap-up.
func (s *Store) DeleteWrapUp(ctx context.Context, id uuid.UUID) error {
	return s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
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

func wrapUpWhere(ctx context.Context, q queryer, where string, args ...any) (domain.WrapUp, error) {
	w, err := scanWrapUp(q.QueryRowContext(ctx, `SELECT `+wrapUpColumns+` FROM wrapups WHERE `+where, args...))
	if err != nil {
		return domain.WrapUp{}, notFound(err, "Entity not found: wrap-up")
	}
	return w, nil
}

func scanWrapUp(row interface{ Scan(...any) error }) (domain.WrapUp, error) {
	var (
		w                       domain.WrapUp
		id, status, start, end  string
		created                 string
		user, done, msg, report sql.Null[string]
	)
	if err := row.Scan(&id, &user, &status, &start, &end, &created, &done, &msg, &report); err != nil {
		return w, err
	}
	var err error
	if w.ID, err = uuid.Parse(id); err != nil {
		return w, fmt.Errorf("wrap-up id %q: %w", id, err)
	}
	if user.Valid {
		u, err := uuid.Parse(user.V)
		if err != nil {
			return w, fmt.Errorf("wrap-up %s user: %w", id, err)
		}
		w.UserID = &u
	}
	if w.StartDate, err = domain.ParseDate(start); err != nil {
		return w, err
	}
	if w.EndDate, err = domain.ParseDate(end); err != nil {
		return w, err
	}
	if w.CreatedAt, err = parseTime(created); err != nil {
		return w, err
	}
	if done.Valid {
		t, err := parseTime(done.V)
		if err != nil {
			return w, err
		}
		w.CompletedAt = &t
	}
	w.Status, w.ErrorMessage = domain.WrapUpStatus(status), ptr(msg)
	if report.Valid {
		w.Report = json.RawMessage(report.V)
	}
	return w, nil
}
