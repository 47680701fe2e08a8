package domain

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseWatchedAt(t *testing.T) {
	want := time.Date(2024, 3, 1, 20, 15, 0, 0, time.UTC)
	for _, s := range []string{"2024-03-01T20:15", "2024-03-01T20:15:00", "2024-03-01 20:15:00", "2024-03-01T21:15:00+01:00", " 2024-03-01T20:15:00Z "} {
		got, err := ParseWatchedAt(s)
		if err != nil || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("ParseWatchedAt(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "2024", "2024-03", "03/01/2024", "2024-03-01T25:00", "2024-02-30", "2024-03-01 20:15", "now", "0000-06-01", "9999-12-31T23:00:00-05:00"} {
		if _, err := ParseWatchedAt(s); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseWatchedAt(%q) error = %v, want an invalid error", s, err)
		}
	}
}

func TestNormalizeComment(t *testing.T) {
	long := strings.Repeat("é", MaxCommentBytes/2)
	if c, err := NormalizeComment(&long); err != nil || *c != long {
		t.Errorf("a %d-byte comment: %v", len(long), err)
	}
	over := long + "x"
	if _, err := NormalizeComment(&over); !errors.Is(err, ErrInvalid) {
		t.Errorf("a %d-byte comment: %v, want invalid", len(over), err)
	}
	blank := "   "
	if c, err := NormalizeComment(&blank); c != nil || err != nil {
		t.Errorf("a blank comment = %v, %v; want none", c, err)
	}
}

func TestNormalizeExternalID(t *testing.T) {
	for in, want := range map[string]string{"tt0113277": "tt0113277", " tmdb:949 ": "tmdb:949", "": "", "  ": ""} {
		if got, err := NormalizeExternalID(in); err != nil || got != want {
			t.Errorf("NormalizeExternalID(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"tt", "imdb:tt1", "tmdb:", "tmdb:x1", "TT0113277", "https://imdb.com/title/tt1"} {
		if _, err := NormalizeExternalID(in); !errors.Is(err, ErrInvalid) {
			t.Errorf("NormalizeExternalID(%q) = %v, want invalid", in, err)
		}
	}
	if MovieIDFor("tt0113277") != MovieIDFor("tt0113277") || MovieIDFor("tt0113277") == MovieIDFor("tt0113278") {
		t.Error("MovieIDFor is not a deterministic function of the external id")
	}
}

func TestErrorKinds(t *testing.T) {
	err := NotFound("review %d", 1)
	wrapped := errors.Join(errors.New("context"), err)
	if !errors.Is(wrapped, ErrNotFound) || errors.Is(wrapped, ErrInvalid) || KindOf(wrapped) != KindNotFound {
		t.Errorf("kind matching of %v is wrong", wrapped)
	}
	if KindOf(errors.New("plain")) != KindInternal {
		t.Error("a plain error is not internal")
	}
	if _, err := NewPage(0, 0); !errors.Is(err, ErrInvalid) {
		t.Error("limit 0 accepted")
	}
	if _, err := NewPage(MaxLimit+1, 0); !errors.Is(err, ErrInvalid) {
		t.Error("limit 101 accepted")
	}
}
