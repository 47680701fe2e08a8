package sqlrow

import (
	"fmt"
	"time"
)

// TimeLayout is how the domain tables store instants: RFC 3339 UTC with milliseconds, fixed
// width, so text order is time order.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// FormatTime is how a time column stores t.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// ParseTime reads a time column, in UTC.
func ParseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("stored time %q: %w", s, err)
	}
	return t.UTC(), nil
}

// ParseOptionalTime parses a nullable time column.
func ParseOptionalTime(s *string) (*time.Time, error) {
	if s == nil {
		return nil, nil
	}
	t, err := ParseTime(*s)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// Millis is t as a Unix-ms column value.
func Millis(t time.Time) int64 { return t.UnixMilli() }
