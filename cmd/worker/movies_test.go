package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/config"
	"moviesdiary/internal/domain"
)

// moviesFixture is a database with a manual "Arrival" (2016) logged first, as a Letterboxd import
// stores it, the same film logged later under tmdb:329865, as a Plex scrobble names it, and a
// manual "Solaris" (1972).
type moviesFixture struct {
	cfg                      config.Config
	db                       *sql.DB
	manual, film, solaris    uuid.UUID
	manualTitle, filmTitle   string
	reviewsOnManual, nMovies int
}

func newMoviesFixture(t *testing.T, kind string) *moviesFixture {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	s, url, db := openFixtureStore(t, kind, "movies.db")
	defer s.Close()
	u, err := s.CreateUser(ctx, domain.User{ID: uuid.New(), Username: "ann", Email: "ann@example.org", PasswordHash: "x",
		CreatedAt: time.Now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	log := func(m domain.Movie, day int) domain.Movie {
		t.Helper()
		at := time.Date(2024, 3, day, 0, 0, 0, 0, time.UTC)
		got, err := s.LogReview(ctx, domain.Review{ID: uuid.New(), UserID: u.ID, Rating: 4, WatchedAt: at, CreatedAt: at, UpdatedAt: at}, m, nil)
		if err != nil {
			t.Fatal(err)
		}
		return got.Movie
	}
	manual := func(title string, year int) domain.Movie {
		m, err := domain.NewManualMovie(title, &year, nil)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	f := &moviesFixture{cfg: config.Config{DatabaseURL: url, DataDir: dir}, db: db}
	f.manual = log(manual("Arrival", 2016), 1).ID
	ext := "tmdb:329865"
	f.film = log(domain.Movie{ExternalID: &ext, Title: "Arrival", ReleaseYear: 2016, Genres: []string{}}, 2).ID
	f.solaris = log(manual("Solaris", 1972), 3).ID
	return f
}

func (f *moviesFixture) run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = moviesCommand(context.Background(), f.cfg, args, &out, &errb)
	return code, out.String(), errb.String()
}

// state is what a command may change: the movies, where the reviews are, the outbox.
func (f *moviesFixture) state(t *testing.T) string {
	t.Helper()
	var movies, onManual, events int
	var ext sql.Null[string]
	for _, q := range []struct {
		query string
		dst   any
	}{
		{`SELECT count(*) FROM movies`, &movies},
		{`SELECT count(*) FROM reviews WHERE movie_id = '` + f.manual.String() + `'`, &onManual},
		{`SELECT count(*) FROM event_queue`, &events},
		{`SELECT external_metadata_id FROM movies WHERE id = '` + f.solaris.String() + `'`, &ext},
	} {
		if err := f.db.QueryRow(q.query).Scan(q.dst); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := json.Marshal([]any{movies, onManual, events, ext.V})
	return string(b)
}

func TestMoviesCommand(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			f := newMoviesFixture(t, kind)
			initial := f.state(t)

			// Mistakes in the command line: exit 2 with the usage, nothing opened or changed.
			for _, args := range [][]string{
				{}, {"bogus"}, {"merge", f.manual.String()}, {"merge", "not-a-uuid", f.film.String()},
				{"merge", f.manual.String(), f.film.String(), "--force"}, {"resolve", f.solaris.String(), "imdb:593"},
				{"resolve", f.solaris.String()}, {"list-unresolved", "--limit", "0"}, {"duplicates", "extra"},
			} {
				if code, _, stderr := f.run(t, args...); code != 2 || !strings.Contains(stderr, "usage: worker movies") {
					t.Errorf("worker movies %v: exit %d, want 2 with the usage:\n%s", args, code, stderr)
				}
			}
			if code, _, _ := f.run(t, "help"); code != 0 {
				t.Errorf("help: exit %d", code)
			}

			code, out, _ := f.run(t, "list-unresolved", "--json")
			var unresolved []struct {
				Movie   struct{ ID uuid.UUID } `json:"movie"`
				Reviews int                    `json:"reviews"`
			}
			if err := json.Unmarshal([]byte(out), &unresolved); code != 0 || err != nil || len(unresolved) != 2 ||
				unresolved[0].Movie.ID != f.manual || unresolved[0].Reviews != 1 || unresolved[1].Movie.ID != f.solaris {
				t.Fatalf("list-unresolved: exit %d, %v: %s", code, err, out)
			}
			code, out, _ = f.run(t, "duplicates", "--json")
			var dups []duplicateJSON
			if err := json.Unmarshal([]byte(out), &dups); code != 0 || err != nil || len(dups) != 1 || dups[0].Reason != "title_year" ||
				len(dups[0].Movies) != 2 || dups[0].Movies[0].ID != f.manual || dups[0].Movies[1].ID != f.film {
				t.Fatalf("duplicates: exit %d, %v: %s", code, err, out)
			}
			if code, out, _ = f.run(t, "duplicates"); code != 0 || !strings.Contains(out, "title_year") {
				t.Errorf("duplicates, human: exit %d:\n%s", code, out)
			}

			// A dry run says what would move and changes nothing.
			code, out, _ = f.run(t, "merge", f.manual.String(), f.film.String(), "--dry-run")
			if code != 0 || !strings.Contains(out, "would merge") || !regexp.MustCompile(`(?m)^reviews +1 `).MatchString(out) {
				t.Errorf("merge --dry-run: exit %d:\n%s", code, out)
			}
			if got := f.state(t); got != initial {
				t.Errorf("a dry run changed %s into %s", initial, got)
			}
			// Refused merges: clear errors, exit 1, nothing changed.
			for _, c := range []struct {
				args []string
				want string
			}{
				{[]string{"merge", f.manual.String(), f.manual.String()}, "cannot be merged into itself"},
				{[]string{"merge", uuid.NewString(), f.film.String()}, "not found"},
				{[]string{"merge", f.manual.String(), uuid.NewString()}, "not found"},
				{[]string{"resolve", f.film.String(), "tmdb:1"}, "is tmdb:329865 already"},
			} {
				if code, _, stderr := f.run(t, c.args...); code != 1 || !strings.Contains(stderr, c.want) {
					t.Errorf("worker movies %v: exit %d, want 1 with %q:\n%s", c.args, code, c.want, stderr)
				}
			}
			if got := f.state(t); got != initial {
				t.Errorf("a refused merge changed %s into %s", initial, got)
			}

			code, out, _ = f.run(t, "merge", f.manual.String(), f.film.String(), "--json")
			var res struct {
				Into    uuid.UUID `json:"into"`
				Reviews int       `json:"reviews"`
			}
			if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || res.Into != f.film || res.Reviews != 1 {
				t.Fatalf("merge: exit %d, %v: %s", code, err, out)
			}
			var onFilm int
			_ = f.db.QueryRow(`SELECT count(*) FROM reviews WHERE movie_id = '` + f.film.String() + `'`).Scan(&onFilm)
			if onFilm != 2 {
				t.Errorf("%d reviews on the film after the merge, want 2", onFilm)
			}
			if code, out, _ = f.run(t, "merge", f.manual.String(), f.film.String()); code != 0 || !strings.Contains(out, "already") {
				t.Errorf("merge again: exit %d:\n%s", code, out)
			}

			before := f.state(t)
			if code, out, _ = f.run(t, "resolve", f.solaris.String(), "tmdb:593", "--dry-run"); code != 0 || !strings.Contains(out, "would take") {
				t.Errorf("resolve --dry-run: exit %d:\n%s", code, out)
			}
			if got := f.state(t); got != before {
				t.Errorf("a dry run changed %s into %s", before, got)
			}
			if code, out, _ = f.run(t, "resolve", f.solaris.String(), "tmdb:593"); code != 0 || !strings.Contains(out, "is tmdb:593 now") {
				t.Errorf("resolve: exit %d:\n%s", code, out)
			}
			if code, out, _ = f.run(t, "list-unresolved"); code != 0 || strings.Count(out, "\n") != 1 {
				t.Errorf("list-unresolved after the fixes: exit %d, want the header alone:\n%s", code, out)
			}
		})
	}
}
