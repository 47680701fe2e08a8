package domain_test

import (
	"strings"
	"testing"

	"moviesdiary/internal/domain"
)

func TestNewProfileText(t *testing.T) {
	t.Parallel()
	name, bio, aka, err := domain.NewProfileText("  Alice ", " bio\n", " https://old.test/users/a ")
	if err != nil || name != "Alice" || bio != "bio" || aka != "https://old.test/users/a" {
		t.Errorf("NewProfileText = %q, %q, %q, %v", name, bio, aka, err)
	}
	if _, _, _, err := domain.NewProfileText(strings.Repeat("é", domain.MaxDisplayNameLength), "", ""); err != nil {
		t.Errorf("a display name at the limit: %v", err)
	}
	for _, c := range []struct{ name, bio, aka string }{
		{strings.Repeat("é", domain.MaxDisplayNameLength+1), "", ""},
		{"", strings.Repeat("x", domain.MaxBioLength+1), ""},
		{"", "", "alice@old.test"},
		{"", "", "ftp://old.test/a"},
		{"", "", "https:///nohost"},
		{"\xff", "", ""},
	} {
		if _, _, _, err := domain.NewProfileText(c.name, c.bio, c.aka); domain.KindOf(err) != domain.KindInvalid {
			t.Errorf("NewProfileText(%.20q, %.20q, %q) = %v, want KindInvalid", c.name, c.bio, c.aka, err)
		}
	}
}

func TestNewProfileFields(t *testing.T) {
	t.Parallel()
	got, err := domain.NewProfileFields([]domain.ProfileField{{Name: " a ", Value: " b "}, {Name: "c", Value: ""}})
	if err != nil || len(got) != 2 || got[0] != (domain.ProfileField{Name: "a", Value: "b"}) {
		t.Errorf("NewProfileFields = %v, %v", got, err)
	}
	if got, err := domain.NewProfileFields(nil); err != nil || got == nil || len(got) != 0 {
		t.Errorf("no fields = %#v, %v; want an empty list", got, err)
	}
	for _, fs := range [][]domain.ProfileField{
		make([]domain.ProfileField, domain.MaxProfileFields+1),
		{{Name: " ", Value: "b"}},
		{{Name: strings.Repeat("n", domain.MaxProfileFieldName+1)}},
		{{Name: "n", Value: strings.Repeat("v", domain.MaxProfileFieldValue+1)}},
	} {
		if _, err := domain.NewProfileFields(fs); domain.KindOf(err) != domain.KindInvalid {
			t.Errorf("NewProfileFields(%d fields) = %v, want KindInvalid", len(fs), err)
		}
	}
}

func TestNormalizeBlockedDomain(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"example.social": "example.social", " Example.Social. ": "example.social", "https://m.example.social/@x": "m.example.social",
		"http://example.social:8080/": "example.social", "xn--bcher-kva.example": "xn--bcher-kva.example", "localhost": "localhost",
	} {
		if got, err := domain.NormalizeBlockedDomain(in); err != nil || got != want {
			t.Errorf("NormalizeBlockedDomain(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", " ", "bad host", "-x.example", "x..example", "bücher.example", "a_b.example", "https://", "*.example",
		strings.Repeat("a.", 127) + "aa"} {
		if got, err := domain.NormalizeBlockedDomain(in); domain.KindOf(err) != domain.KindInvalid {
			t.Errorf("NormalizeBlockedDomain(%q) = %q, %v; want KindInvalid", in, got, err)
		}
	}
}

func TestGoalProgress(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		target, current int
		pct             float64
		complete        bool
	}{{10, 0, 0, false}, {4, 1, 25, false}, {3, 3, 100, true}, {2, 5, 100, true}} {
		g := domain.GoalProgress{Goal: domain.Goal{TargetCount: c.target}, CurrentCount: c.current}
		if g.Percentage() != c.pct || g.Complete() != c.complete {
			t.Errorf("%d of %d = %v%%, complete %v", c.current, c.target, g.Percentage(), g.Complete())
		}
	}
	for year, ok := range map[int]bool{2019: false, 2020: true, 2026: true, 9999: true, 10000: false} {
		if err := domain.ValidateGoalYear(year); (err == nil) != ok {
			t.Errorf("ValidateGoalYear(%d) = %v", year, err)
		}
	}
}
