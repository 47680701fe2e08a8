package search_test

import (
	"context"
	"sync"
	"testing"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/app/mediatest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/search"
)

var (
	_ search.Index  = (*sqlite.Store)(nil)
	_ search.Reader = (*sqlite.Store)(nil)
)

type bundle struct {
	*mediatest.Env
	h   *search.Handlers
	svc *search.Service
}

func setup(t *testing.T) *bundle {
	t.Helper()
	env := mediatest.New(t)
	return &bundle{Env: env, h: search.NewHandlers(env.Store), svc: search.NewService(env.Store, env.Store)}
}

// addCredit stores a person (once) and their credit on a movie.
func (b *bundle) addCredit(movie uuid.UUID, tmdbID, name, kind, role, dept string) uuid.UUID {
	b.T.Helper()
	ext := "tmdb:" + tmdbID
	id := domain.MovieIDFor(ext)
	b.Exec(`INSERT INTO people (id, external_id, name, known_for_department) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		id.String(), ext, name, dept)
	b.Exec(`INSERT INTO movie_credits (movie_id, person_id, kind, role, billing_order) VALUES (?, ?, ?, ?, 0)`,
		movie.String(), id.String(), kind, role)
	return id
}

func (b *bundle) find(q search.Query) search.Results {
	b.T.Helper()
	if q.Page.Limit == 0 {
		q.Page.Limit = 20
	}
	r, err := b.svc.Search(context.Background(), q)
	if err != nil {
		b.T.Fatal(err)
	}
	return r
}

func titles(r search.Results) []string {
	out := []string{}
	for _, m := range r.Movies.Items {
		out = append(out, m.Title)
	}
	return out
}

// docs checks the index holds exactly one document per movie and per person, and that the FTS
// index agrees with its content table.
func (b *bundle) docs(t *testing.T, movies, people int) {
	t.Helper()
	if n := b.Int(`SELECT count(*) FROM search_movies`); n != movies {
		t.Errorf("%d movie documents, want %d", n, movies)
	}
	if n := b.Int(`SELECT count(DISTINCT movie_id) FROM search_movies`); n != movies {
		t.Errorf("%d distinct movies indexed, want %d", n, movies)
	}
	if n := b.Int(`SELECT count(*) FROM search_people`); n != people {
		t.Errorf("%d people documents, want %d", n, people)
	}
	b.Exec(`INSERT INTO movies_fts (movies_fts) VALUES ('integrity-check')`)
	b.Exec(`INSERT INTO people_fts (people_fts) VALUES ('integrity-check')`)
}

func TestIndexTwiceAndConcurrently(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	movie := b.AddMovie(mediatest.BladeRunner, "Blade Runner", 1982)
	b.addCredit(movie, "3", "Harrison Ford", "cast", "Rick Deckard", "Acting")
	e := domain.MovieDiscovered{MovieID: movie, ExternalMetadataID: mediatest.BladeRunner}
	for range 2 {
		if err := b.h.Index(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	b.docs(t, 1, 1)
	// Discovery, enrichment and review indexing overlap: many at once still leave one row each.
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			var err error
			if i%2 == 0 {
				err = b.h.Index(ctx, e)
			} else {
				err = b.Store.IndexMovie(ctx, movie, false)
			}
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	b.docs(t, 1, 1)
	if got := titles(b.find(search.Query{Text: "blade"})); len(got) != 1 || got[0] != "Blade Runner" {
		t.Errorf("q=blade: %v", got)
	}
	if got := titles(b.find(search.Query{Text: "harrison"})); len(got) != 1 {
		t.Errorf("q=harrison (cast name): %v", got)
	}
	if r := b.find(search.Query{Text: "harr"}); r.People.Total != 1 || r.People.Items[0].Name != "Harrison Ford" ||
		len(r.People.Items[0].KnownForTitles) != 1 {
		t.Errorf("people q=harr: %+v", r.People)
	}
}

func TestIndexKilledAndRerun(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	movie := b.AddMovie(mediatest.BladeRunner, "Blade Runner", 1982)
	// A failure inside the transaction (the FTS write refused) leaves nothing half-written.
	b.Exec(`CREATE TRIGGER fail_fts BEFORE INSERT ON search_movies BEGIN SELECT RAISE(ABORT, 'injected'); END`)
	if err := b.h.Index(ctx, domain.MovieDiscovered{MovieID: movie, ExternalMetadataID: mediatest.BladeRunner}); err == nil {
		t.Fatal("injected failure swallowed")
	}
	b.docs(t, 0, 0)
	b.Exec(`DROP TRIGGER fail_fts`)
	if err := b.h.Index(ctx, domain.MovieDiscovered{MovieID: movie, ExternalMetadataID: mediatest.BladeRunner}); err != nil {
		t.Fatal(err)
	}
	b.docs(t, 1, 0)
}

func TestCleanupRemovesMovieAndOrphans(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	br := b.AddMovie(mediatest.BladeRunner, "Blade Runner", 1982)
	wit := b.AddMovie("tt0090329", "Witness", 1985)
	b.addCredit(br, "3", "Harrison Ford", "cast", "Rick Deckard", "Acting")
	b.addCredit(wit, "3", "Harrison Ford", "cast", "John Book", "Acting")
	b.addCredit(br, "585", "Rutger Hauer", "cast", "Roy Batty", "Acting")
	if err := b.Store.Reindex(ctx, 1); err != nil {
		t.Fatal(err)
	}
	b.docs(t, 2, 2)
	b.Exec(`DELETE FROM movies WHERE id = ?`, br.String())
	for range 2 {
		if err := b.h.Cleanup(ctx, domain.MovieDeleted{MovieID: br}); err != nil {
			t.Fatal(err)
		}
	}
	b.docs(t, 1, 1)
	if r := b.find(search.Query{Text: "rutger"}); r.People.Total != 0 || r.Movies.Total != 0 {
		t.Errorf("deleted movie's orphan still found: %+v", r)
	}
}

func TestReindexRebuildsEverything(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	for i := range 23 {
		id := b.AddMovie("tt10000"+string(rune('a'+i)), "Movie "+string(rune('A'+i)), 2000+i)
		b.addCredit(id, string(rune('a'+i)), "Person "+string(rune('A'+i)), "crew", "Director", "Directing")
	}
	b.Exec(`UPDATE movies SET external_metadata_id = NULL`) // typed in by hand: never discovered
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if err := b.h.Reindex(ctx, domain.SearchReindexRequested{}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if err := b.Store.Reindex(ctx, 5); err != nil {
		t.Fatal(err)
	}
	b.docs(t, 23, 23)
	if r := b.find(search.Query{Department: "directing", Page: domain.Page{Limit: 5, Offset: 20}}); r.People.Total != 23 ||
		len(r.People.Items) != 3 {
		t.Errorf("people page 5@20: total %d, %d items", r.People.Total, len(r.People.Items))
	}
}

func TestSearchFilters(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	br := b.AddMovie(mediatest.BladeRunner, "Blade Runner", 1982)
	b2049 := b.AddMovie("tt1856101", "Blade Runner 2049", 2017)
	b.AddMovie("tt0090329", "Witness", 1985)
	b.Exec(`UPDATE movies SET genres = '["Science Fiction","Drama"]', original_language = 'en' WHERE id = ?`, br.String())
	b.Exec(`UPDATE movies SET genres = '["Science Fiction"]', original_language = 'en' WHERE id = ?`, b2049.String())
	ford := b.addCredit(br, "3", "Harrison Ford", "cast", "Rick Deckard", "Acting")
	b.addCredit(b2049, "3", "Harrison Ford", "cast", "Rick Deckard", "Acting")
	b.addCredit(b2049, "30614", "Ryan Gosling", "cast", "K", "Acting")
	if err := b.Store.Reindex(ctx, 500); err != nil {
		t.Fatal(err)
	}
	year := 1982
	for name, tc := range map[string]struct {
		q    search.Query
		want int
	}{
		"text":             {search.Query{Text: "blade"}, 2},
		"two words":        {search.Query{Text: "blade 2049"}, 1},
		"prefix":           {search.Query{Text: "run"}, 2},
		"genre":            {search.Query{Genre: "drama"}, 1},
		"year":             {search.Query{Text: "blade", Year: &year}, 1},
		"language":         {search.Query{Language: "en"}, 2},
		"person":           {search.Query{PersonID: &ford}, 2},
		"no match":         {search.Query{Text: "zzz"}, 0},
		"punctuation only": {search.Query{Text: `"*:)(`}, 0},
		"fts syntax":       {search.Query{Text: `blade OR NEAR(" AND`}, 0},
		"diacritics":       {search.Query{Text: "bládé"}, 2},
		"everything":       {search.Query{}, 3},
	} {
		if r := b.find(tc.q); r.Movies.Total != tc.want || len(r.Movies.Items) != tc.want {
			t.Errorf("%s: %d movies (%v), want %d", name, r.Movies.Total, titles(r), tc.want)
		}
	}
	if r := b.find(search.Query{Text: "gos"}); r.People.Total != 1 || r.People.Items[0].KnownForTitles[0] != "Blade Runner 2049" {
		t.Errorf("people q=gos: %+v", r.People)
	}
}

func TestReindexRequestIsForAdmins(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	admin, user := b.AddUser("admin"), b.AddUser("user")
	b.Exec(`UPDATE users SET is_admin = 1 WHERE id = ?`, admin.String())
	if err := b.svc.RequestReindex(ctx, user); domain.KindOf(err) != domain.KindForbidden {
		t.Errorf("user: %v, want forbidden", err)
	}
	if err := b.svc.RequestReindex(ctx, uuid.New()); domain.KindOf(err) != domain.KindUnauthorized {
		t.Errorf("unknown: %v, want unauthorized", err)
	}
	if err := b.svc.RequestReindex(ctx, admin); err != nil || b.Events("SearchReindexRequested") != 1 {
		t.Errorf("admin: %v, %d events", err, b.Events("SearchReindexRequested"))
	}
}

// TestRanking: a title match outranks a cast match, and the count matches the list.
func TestRanking(t *testing.T) {
	t.Parallel()
	b := setup(t)
	br := b.AddMovie(mediatest.BladeRunner, "Blade Runner", 1982)
	b.addCredit(br, "3", "Harrison Ford", "cast", "Rick Deckard", "Acting")
	b.AddMovie("tt1950186", "Ford v Ferrari", 2019)
	if err := b.Store.Reindex(context.Background(), 500); err != nil {
		t.Fatal(err)
	}
	r := b.find(search.Query{Text: "ford"})
	if got := titles(r); len(got) != 2 || got[0] != "Ford v Ferrari" || r.Movies.Total != 2 {
		t.Errorf("q=ford: %v (total %d), want the title match first", got, r.Movies.Total)
	}
	if r := b.find(search.Query{Text: "ford", Page: domain.Page{Limit: 1, Offset: 1}}); r.Movies.Total != 2 ||
		len(r.Movies.Items) != 1 || r.Movies.Items[0].Title != "Blade Runner" {
		t.Errorf("second page: %+v", r.Movies)
	}
}
