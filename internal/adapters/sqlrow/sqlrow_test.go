package sqlrow_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
)

// TestTimeColumnsRoundTrip: a time written as a column reads back as the same instant in UTC,
// and the fixed-width layout keeps text order as time order.
func TestTimeColumnsRoundTrip(t *testing.T) {
	at := time.Date(2024, 3, 1, 20, 30, 0, 123e6, time.FixedZone("CET", 3600))
	got, err := sqlrow.ParseTime(sqlrow.FormatTime(at))
	if err != nil || !got.Equal(at) || got.Location() != time.UTC {
		t.Fatalf("ParseTime(FormatTime(%v)) = %v, %v; want the same instant in UTC", at, got, err)
	}
	if a, b := sqlrow.FormatTime(at), sqlrow.FormatTime(at.Add(time.Millisecond)); a >= b {
		t.Errorf("%q sorts after %q", a, b)
	}
	if _, err := sqlrow.ParseTime("yesterday"); err == nil {
		t.Error("ParseTime accepted a bad value")
	}
}

// TestNullableColumns: NullOf and Ptr are inverses, nil for NULL.
func TestNullableColumns(t *testing.T) {
	if p := sqlrow.Ptr(sqlrow.NullOf[string](nil)); p != nil {
		t.Errorf("NULL read back as %q", *p)
	}
	if p := sqlrow.Ptr(sqlrow.NullOf(sqlrow.Ref("x"))); p == nil || *p != "x" {
		t.Errorf("x read back as %v", p)
	}
}

// TestMovieRowGenres: a movie row's genres column is a JSON array; empty means none, and a bad
// one is an error naming the movie.
func TestMovieRowGenres(t *testing.T) {
	m, err := sqlrow.Movie{Title: "Heat", Genres: `["Crime","Thriller"]`}.Movie()
	if err != nil || len(m.Genres) != 2 || m.Genres[1] != "Thriller" {
		t.Fatalf("genres = %v, %v", m.Genres, err)
	}
	if m, err := (sqlrow.Movie{}).Movie(); err != nil || m.Genres == nil || len(m.Genres) != 0 {
		t.Errorf("empty genres = %#v, %v; want an empty list", m.Genres, err)
	}
	if _, err := (sqlrow.Movie{Genres: "{"}).Movie(); err == nil {
		t.Error("a bad genres column read as a movie")
	}
}

// TestCheckWatchOwners: a dismissal of another user's event is forbidden, of a missing one not
// found, and of the user's own events allowed.
func TestCheckWatchOwners(t *testing.T) {
	alice, bob := uuid.New(), uuid.New()
	e1, e2 := uuid.New(), uuid.New()
	own := []sqlrow.WatchOwner{{ID: e1, UserID: alice}, {ID: e2, UserID: alice}}
	if err := sqlrow.CheckWatchOwners(own, alice, []uuid.UUID{e1, e2}); err != nil {
		t.Errorf("own events: %v", err)
	}
	if err := sqlrow.CheckWatchOwners(own, bob, []uuid.UUID{e1, e2}); domain.KindOf(err) != domain.KindForbidden {
		t.Errorf("another's events: %v, want forbidden", err)
	}
	if err := sqlrow.CheckWatchOwners(own[:1], alice, []uuid.UUID{e1, e2}); domain.KindOf(err) != domain.KindNotFound {
		t.Errorf("a missing event: %v, want not found", err)
	}
}

// TestMapRows: no rows map to nil, and the first failing row stops the mapping.
func TestMapRows(t *testing.T) {
	if out, err := sqlrow.MapRows([]int(nil), func(int) (int, error) { return 0, nil }); out != nil || err != nil {
		t.Errorf("no rows = %v, %v", out, err)
	}
	bad := errors.New("bad")
	out, err := sqlrow.MapRows([]int{1, 2, 3}, func(i int) (int, error) {
		if i == 2 {
			return 0, bad
		}
		return i * 10, nil
	})
	if !errors.Is(err, bad) || out != nil {
		t.Errorf("failing row = %v, %v", out, err)
	}
}
