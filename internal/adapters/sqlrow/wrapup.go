package sqlrow

import (
	"database/sql"
	"encoding/json"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// WrapUpColumns are the columns of WrapUp.
const WrapUpColumns = `id, user_id, status, start_date, end_date, created_at, completed_at, error_message, report`

// WrapUp is a wrapups row.
type WrapUp struct {
	ID           uuid.UUID           `db:"id"`
	UserID       sql.Null[uuid.UUID] `db:"user_id"`
	Status       string              `db:"status"`
	StartDate    string              `db:"start_date"`
	EndDate      string              `db:"end_date"`
	CreatedAt    string              `db:"created_at"`
	CompletedAt  sql.Null[string]    `db:"completed_at"`
	ErrorMessage sql.Null[string]    `db:"error_message"`
	Report       sql.Null[string]    `db:"report"`
}

// WrapUp maps the row to its domain value.
func (r WrapUp) WrapUp() (domain.WrapUp, error) {
	w := domain.WrapUp{ID: r.ID, UserID: Ptr(r.UserID), Status: domain.WrapUpStatus(r.Status), ErrorMessage: Ptr(r.ErrorMessage)}
	var err error
	if w.StartDate, err = domain.ParseDate(r.StartDate); err != nil {
		return domain.WrapUp{}, err
	}
	if w.EndDate, err = domain.ParseDate(r.EndDate); err != nil {
		return domain.WrapUp{}, err
	}
	if w.CreatedAt, err = ParseTime(r.CreatedAt); err != nil {
		return domain.WrapUp{}, err
	}
	if w.CompletedAt, err = ParseOptionalTime(Ptr(r.CompletedAt)); err != nil {
		return domain.WrapUp{}, err
	}
	if r.Report.Valid {
		w.Report = json.RawMessage(r.Report.V)
	}
	return w, nil
}
