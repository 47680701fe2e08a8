package domain_test

import (
	"errors"
	"testing"

	"moviesdiary/internal/domain"
)

// TestTextRule: the one rule for text, refused (CheckText) or stripped (StripControl) alike.
func TestTextRule(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in       string
		prose    bool
		ok       bool
		stripped string
	}{
		{"Heat", false, true, "Heat"},
		{"Amélie — 2001", false, true, "Amélie — 2001"},
		{"He\x00at", false, false, "Heat"},
		{"He\x00at", true, false, "Heat"},
		{"a\nb\tc\r", false, false, "abc"},
		{"a\nb\tc\r", true, true, "a\nb\tc\r"},
		{"esc\x1b[31m", true, false, "esc[31m"},
		{"del\x7f c1\u0085", false, false, "del c1"},
		{"bad \xff utf-8", false, false, "bad \uFFFD utf-8"},
	}
	for _, c := range cases {
		err := domain.CheckText("title", c.in, c.prose)
		if (err == nil) != c.ok || err != nil && !errors.Is(err, domain.ErrInvalid) {
			t.Errorf("CheckText(%q, prose %v) = %v, want ok %v", c.in, c.prose, err, c.ok)
		}
		if got := domain.StripControl(c.in, c.prose); got != c.stripped || domain.CheckText("title", got, c.prose) != nil {
			t.Errorf("StripControl(%q, prose %v) = %q, want %q", c.in, c.prose, got, c.stripped)
		}
	}
	if err := domain.CheckText("title", "He\x00at", false); err.Error() != "title: control character U+0000 is not allowed" {
		t.Errorf("message %q", err)
	}
}
