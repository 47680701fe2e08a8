package enrichment_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/tmdb"
	"moviesdiary/internal/app/mediatest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/enrichment"
)

var (
	_ enrichment.MovieStore  = (*sqlite.Store)(nil)
	_ enrichment.PersonStore = (*sqlite.Store)(nil)
)

type bundle struct {
	*mediatest.Env
	movies *enrichment.Movies
	people *enrichment.People
	now    time.Time
	mu     sync.Mutex
	movie  uuid.UUID
}

func setup(t *testing.T) *bundle {
	t.Helper()
	env := mediatest.New(t)
	b := &bundle{Env: env, now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	clock := func() time.Time { b.mu.Lock(); defer b.mu.Unlock(); return b.now }
	src := tmdb.Enrichment{C: env.TMDb.Client()}
	b.movies = enrichment.NewMovies(env.Store, src, clock, env.Log)
	b.people = enrichment.NewPeople(env.Store, src, clock, env.Log)
	b.movie = env.AddMovie(mediatest.BladeRunner, "Blade Runner", 1982)
	return b
}

func (b *bundle) advance(d time.Duration) { b.mu.Lock(); b.now = b.now.Add(d); b.mu.Unlock() }

func (b *bundle) request() domain.Event {
	return domain.MovieEnrichmentRequested{MovieID: b.movie, ExternalMetadataID: mediatest.BladeRunner}
}

// enriched checks the end state of one enrichment of Blade Runner.
func (b *bundle) enriched(t *testing.T) {
	t.Helper()
	m := b.movie.String()
	for q, want := range map[string]int{
		`SELECT count(*) FROM movie_profiles WHERE movie_id = ?`:                                                                          1,
		`SELECT count(*) FROM movie_credits WHERE movie_id = ? AND kind = 'cast'`:                                                         4,
		`SELECT count(*) FROM movie_credits WHERE movie_id = ? AND kind = 'crew'`:                                                         3,
		`SELECT count(*) FROM people WHERE id IN (SELECT person_id FROM movie_credits WHERE movie_id = ?)`:                                6,
		`SELECT count(*) FROM search_movies WHERE movie_id = ?`:                                                                           1,
		`SELECT count(*) FROM search_movies WHERE movie_id = ? AND keywords LIKE '%dystopia%' AND cast_names LIKE '%Rutger Hauer%'`:       1,
		`SELECT count(*) FROM search_people s JOIN movie_credits c ON c.person_id = s.person_id WHERE c.movie_id = ? AND c.kind = 'cast'`: 4,
	} {
		if n := b.Int(q, m); n != want {
			t.Errorf("%s = %d, want %d", q, n, want)
		}
	}
	if n := b.Int(`SELECT count(*) FROM search_people`); n != 6 {
		t.Errorf("%d people documents, want 6", n)
	}
	if g := b.String(`SELECT genres FROM movies WHERE id = ?`, m); g != `["Science Fiction","Drama","Thriller"]` {
		t.Errorf("genres = %s", g)
	}
	if d := b.String(`SELECT director FROM movies WHERE id = ?`, m); d != "Ridley Scott" {
		t.Errorf("director = %q", d)
	}
	if n := b.Int(`SELECT json_array_length(profile, '$.cast') FROM movie_profiles WHERE movie_id = ?`, m); n != 4 {
		t.Errorf("profile cast = %d", n)
	}
	ford := enrichment.PersonID(3)
	if got := b.String(`SELECT json_extract(profile, '$.cast[0].person_id') FROM movie_profiles WHERE movie_id = ?`, m); got != ford.String() {
		t.Errorf("cast[0].person_id = %s, want UUIDv5(tmdb:3) %s", got, ford)
	}
}

func TestMovieEnrichmentTwiceCallsTMDbOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	for range 2 {
		if err := b.movies.Handle(ctx, b.request()); err != nil {
			t.Fatal(err)
		}
	}
	b.enriched(t)
	if n := b.TMDb.Count("/3/movie/78"); n != 1 {
		t.Errorf("TMDb /movie/78 asked %d times, want once (a fresh profile skips the call)", n)
	}
	// 31 days later the profile is stale: one more call, the same end state.
	b.advance(31 * 24 * time.Hour)
	if err := b.movies.Handle(ctx, b.request()); err != nil {
		t.Fatal(err)
	}
	b.enriched(t)
	if n := b.TMDb.Count("/3/movie/78"); n != 2 {
		t.Errorf("stale profile: /movie/78 asked %d times, want 2", n)
	}
}

// TestMovieEnrichmentKilledAndRerun fails each step (the TMDb calls, then the transaction at its
// first and at its last write) and re-runs: all or nothing was written, and the re-run completes.
func TestMovieEnrichmentKilledAndRerun(t *testing.T) {
	t.Parallel()
	for _, st := range []struct {
		name   string
		inject func(b *bundle) (undo func())
	}{
		{"at /find", failPath("/3/find/")},
		{"at /movie", failPath("/3/movie/")},
		{"at the first write", failTrigger(`BEFORE INSERT ON people`)},
		{"at the search index", failTrigger(`BEFORE INSERT ON search_movies`)},
		{"at the profile, the last write", failTrigger(`BEFORE INSERT ON movie_profiles`)},
	} {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			ctx := context.Background()
			undo := st.inject(b)
			if err := b.movies.Handle(ctx, b.request()); err == nil || domain.IsPermanent(err) {
				t.Fatalf("injected failure: %v, want transient", err)
			}
			undo()
			for _, table := range []string{"movie_profiles", "movie_credits", "people", "search_movies", "search_people"} {
				if n := b.Int(`SELECT count(*) FROM ` + table); n != 0 {
					t.Errorf("failed run left %d rows in %s", n, table)
				}
			}
			for range 2 {
				if err := b.movies.Handle(ctx, b.request()); err != nil {
					t.Fatal(err)
				}
			}
			b.enriched(t)
		})
	}
}

func TestConcurrentEnrichmentsOfOneMovie(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if err := b.movies.Handle(context.Background(), b.request()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	b.enriched(t)
}

func TestUnknownMovieIsNotAskedAgain(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	id := b.AddMovie("tt0000001", "Nobody Knows", 2000)
	e := domain.MovieEnrichmentRequested{MovieID: id, ExternalMetadataID: "tt0000001"}
	for range 3 {
		if err := b.movies.Handle(ctx, e); err != nil {
			t.Fatalf("unknown movie: %v, want done", err)
		}
	}
	if n := b.TMDb.Count("/3/find/tt0000001"); n != 1 {
		t.Errorf("asked TMDb %d times, want once", n)
	}
	if b.String(`SELECT tmdb_missing_at FROM movies WHERE id = ?`, id.String()) == "" {
		t.Error("not marked")
	}
	// The staleness job leaves it alone too.
	n, err := b.Store.RequestStaleEnrichment(ctx, b.now, enrichment.MovieFresh, enrichment.MissingRetry, time.Hour, 100)
	if err != nil || n != 1 || b.Events("MovieEnrichmentRequested") != 1 {
		t.Errorf("staleness: %d requested (%v), want only Blade Runner", n, err)
	}
	// Requested within the hour: not again.
	if n, _ := b.Store.RequestStaleEnrichment(ctx, b.now, enrichment.MovieFresh, enrichment.MissingRetry, time.Hour, 100); n != 0 {
		t.Errorf("second staleness run requested %d, want 0", n)
	}
}

func TestBadUpstreamLeavesNothing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		body      string
		permanent bool
	}{
		{"garbage JSON", `{"id": 78, "title": `, false},
		{"another movie", `{"id": 1, "title": "Other"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.TMDb.SetOverride(func(w http.ResponseWriter, r *http.Request) bool {
				if !strings.HasPrefix(r.URL.Path, "/3/movie/") {
					return false
				}
				_, _ = w.Write([]byte(tc.body))
				return true
			})
			err := b.movies.Handle(context.Background(), b.request())
			if err == nil || domain.IsPermanent(err) != tc.permanent {
				t.Fatalf("%v: permanent %v, want %v", err, domain.IsPermanent(err), tc.permanent)
			}
			if n := b.Int(`SELECT count(*) FROM movie_profiles`) + b.Int(`SELECT count(*) FROM people`); n != 0 {
				t.Error("something was written")
			}
		})
	}
	b := setup(t)
	b.TMDb.SetOverride(func(w http.ResponseWriter, r *http.Request) bool { w.WriteHeader(401); return true })
	if err := b.movies.Handle(context.Background(), b.request()); !domain.IsPermanent(err) {
		t.Errorf("bad API key: %v, want permanent", err)
	}
}

func TestPersonEnrichment(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	if err := b.movies.Handle(ctx, b.request()); err != nil {
		t.Fatal(err)
	}
	ford := enrichment.PersonID(3)
	e := domain.PersonEnrichmentRequested{PersonID: ford, ExternalPersonID: "tmdb:3"}
	// Killed in the write: nothing, then the re-run completes.
	b.Exec(`CREATE TRIGGER fail_person BEFORE UPDATE OF enriched_at ON people BEGIN SELECT RAISE(ABORT, 'injected'); END`)
	if err := b.people.Handle(ctx, e); err == nil {
		t.Fatal("injected failure swallowed")
	}
	b.Exec(`DROP TRIGGER fail_person`)
	if b.String(`SELECT enriched_at FROM people WHERE id = ?`, ford.String()) != "" {
		t.Fatal("failed run marked the person enriched")
	}
	for range 2 {
		if err := b.people.Handle(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if n := b.TMDb.Count("/3/person/3"); n != 2 {
		t.Errorf("/person/3 asked %d times, want 2 (one failed run, then fresh)", n)
	}
	if got := b.String(`SELECT birthday FROM people WHERE id = ?`, ford.String()); got != "1942-07-13" {
		t.Errorf("birthday = %q", got)
	}
	if got := b.String(`SELECT imdb_id FROM people WHERE id = ?`, ford.String()); got != "nm0000148" {
		t.Errorf("imdb_id = %q", got)
	}
	// Unknown to TMDb: marked, not asked again; a malformed id is permanent.
	unknown := enrichment.PersonID(585)
	for range 2 {
		if err := b.people.Handle(ctx, domain.PersonEnrichmentRequested{PersonID: unknown, ExternalPersonID: "tmdb:585"}); err != nil {
			t.Fatal(err)
		}
	}
	if n := b.TMDb.Count("/3/person/585"); n != 1 {
		t.Errorf("/person/585 asked %d times, want once", n)
	}
	if err := b.people.Handle(ctx, domain.PersonEnrichmentRequested{PersonID: ford, ExternalPersonID: "nm0000148"}); !domain.IsPermanent(err) {
		t.Errorf("non-TMDb person id: %v, want permanent", err)
	}
	if err := b.people.Handle(ctx, domain.PersonEnrichmentRequested{PersonID: uuid.New(), ExternalPersonID: "tmdb:3"}); err != nil {
		t.Errorf("unknown person id: %v, want done", err)
	}
}

func failPath(prefix string) func(b *bundle) func() {
	return func(b *bundle) func() {
		b.TMDb.SetOverride(func(w http.ResponseWriter, r *http.Request) bool {
			if strings.HasPrefix(r.URL.Path, prefix) {
				w.WriteHeader(503)
				return true
			}
			return false
		})
		return func() { b.TMDb.SetOverride(nil) }
	}
}

func failTrigger(when string) func(b *bundle) func() {
	return func(b *bundle) func() {
		b.Exec(`CREATE TRIGGER injected_failure ` + when + ` BEGIN SELECT RAISE(ABORT, 'injected'); END`)
		return func() { b.Exec(`DROP TRIGGER injected_failure`) }
	}
}
