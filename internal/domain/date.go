package domain

import (
	"fmt"
	"time"
)

// dateLayout is the "YYYY-MM-DD" wire form of a Date.
const dateLayout = "2006-01-02"

// Date is a calendar day, held as midnight UTC and carried in payloads as "YYYY-MM-DD" (the
// wrap-up start_date and end_date).
type Date struct{ t time.Time }

// NewDate returns the given calendar day; out-of-range values normalise as in time.Date.
func NewDate(year int, month time.Month, day int) Date {
	return Date{t: time.Date(year, month, day, 0, 0, 0, 0, time.UTC)}
}

// DateOf returns the calendar day of t in t's own location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return NewDate(y, m, d)
}

// ParseDate parses a "YYYY-MM-DD" string.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(dateLayout, s)
	if err != nil {
		return Date{}, fmt.Errorf("date %q: want YYYY-MM-DD", s)
	}
	return DateOf(t), nil
}

// Time returns midnight UTC of the day.
func (d Date) Time() time.Time { return d.t }

// IsZero reports whether d is the zero value, which is what a missing or null field decodes to.
func (d Date) IsZero() bool { return d.t.IsZero() }

// String formats d as "YYYY-MM-DD".
func (d Date) String() string { return d.t.Format(dateLayout) }

// MarshalText encodes d as "YYYY-MM-DD", so it is a JSON string.
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText decodes "YYYY-MM-DD".
func (d *Date) UnmarshalText(b []byte) error {
	v, err := ParseDate(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}
