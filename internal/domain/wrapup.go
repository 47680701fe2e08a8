package domain

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// WrapUpStatus is where a wrap-up is in its life.
type WrapUpStatus string

// The statuses of a wrap-up; Pending, Generating and Ready are live (a request for the same user
// and range returns the live record instead of a new one).
const (
	WrapUpPending    WrapUpStatus = "Pending"
	WrapUpGenerating WrapUpStatus = "Generating"
	WrapUpReady      WrapUpStatus = "Ready"
	WrapUpFailed     WrapUpStatus = "Failed"
)

// WrapUp is a requested viewing summary over a date range, for one user or (UserID nil) the
// whole instance. The worker generates Report.
type WrapUp struct {
	ID           uuid.UUID
	UserID       *uuid.UUID
	Status       WrapUpStatus
	StartDate    Date
	EndDate      Date
	CreatedAt    time.Time
	CompletedAt  *time.Time
	ErrorMessage *string
	Report       json.RawMessage
}

// MaxWrapUpYear is the last year a wrap-up may cover.
const MaxWrapUpYear = 9999

// NewWrapUpRange validates a wrap-up's dates: both present, start not after end, within
// MinReleaseYear and MaxWrapUpYear.
func NewWrapUpRange(start, end string) (Date, Date, error) {
	s, err := ParseDate(start)
	if err != nil {
		return Date{}, Date{}, Invalid("invalid start_date %q: want YYYY-MM-DD", start)
	}
	e, err := ParseDate(end)
	if err != nil {
		return Date{}, Date{}, Invalid("invalid end_date %q: want YYYY-MM-DD", end)
	}
	if e.Time().Before(s.Time()) {
		return Date{}, Date{}, Invalid("end_date must not be before start_date")
	}
	// A diary has nothing before the first film (and a zero date is what a generator reads as
	// "missing"); nothing past MaxWrapUpYear reaches a date column.
	if s.Time().Year() < MinReleaseYear || e.Time().Year() > MaxWrapUpYear {
		return Date{}, Date{}, Invalid("start_date and end_date must lie between %d-01-01 and %d-12-31", MinReleaseYear, MaxWrapUpYear)
	}
	return s, e, nil
}
