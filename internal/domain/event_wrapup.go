package domain

import (
	"fmt"

	"github.com/google/uuid"
)

// WrapUpRequested asks the worker to generate a wrap-up (a viewing summary) over a date range; the
// generate use case emits it after recording the wrap-up as pending, from the API or the
// auto-generate job.
type WrapUpRequested struct {
	WrapUpID  uuid.UUID  `json:"wrapup_id"`
	UserID    *uuid.UUID `json:"user_id,omitempty"` // UserID is nil for an instance-wide wrap-up.
	StartDate Date       `json:"start_date"`
	EndDate   Date       `json:"end_date"`
}

// EventType returns "WrapUpRequested".
func (WrapUpRequested) EventType() string { return "WrapUpRequested" }

// Validate checks the ids and that both dates are present.
func (e WrapUpRequested) Validate() error {
	return firstErr(
		needID("wrapup_id", e.WrapUpID),
		needOptID("user_id", e.UserID),
		needDate("start_date", e.StartDate),
		needDate("end_date", e.EndDate),
	)
}

// WrapUpCompleted means the worker finished generating a wrap-up. No consumer.
type WrapUpCompleted struct {
	WrapUpID uuid.UUID `json:"wrapup_id"`
}

// EventType returns "WrapUpCompleted".
func (WrapUpCompleted) EventType() string { return "WrapUpCompleted" }

// Validate checks the wrap-up id.
func (e WrapUpCompleted) Validate() error { return needID("wrapup_id", e.WrapUpID) }

// needDate rejects a missing date.
func needDate(field string, d Date) error {
	if d.IsZero() {
		return fmt.Errorf("%s: missing date", field)
	}
	return nil
}
