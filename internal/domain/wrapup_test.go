package domain

import (
	"errors"
	"testing"
)

// TestWrapUpRangeRefusesDatesNoDiaryHas: the zero date (0001-01-01, which the generator reads as
// missing and dead-letters, leaving the wrap-up Pending for ever) and years past MaxWrapUpYear
// are refused at the request; an ordinary year is accepted.
func TestWrapUpRangeRefusesDatesNoDiaryHas(t *testing.T) {
	for _, r := range [][2]string{{"0001-01-01", "0001-12-31"}, {"0001-01-01", "2024-12-31"}, {"1887-12-31", "2024-01-01"},
		{"2024-01-01", "10000-01-01"}} {
		if _, _, err := NewWrapUpRange(r[0], r[1]); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s … %s: %v, want invalid", r[0], r[1], err)
		}
	}
	if _, _, err := NewWrapUpRange("1888-01-01", "2024-12-31"); err != nil {
		t.Errorf("1888 … 2024: %v", err)
	}
}
