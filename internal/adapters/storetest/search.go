package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/enrichment"
	"moviesdiary/internal/usecase/review"
	"moviesdiary/internal/usecase/search"
)

// Search is what RunSearch needs of a store: the search index, its reads, and the writes that
// make the movies and people it indexes.
type Search interface {
	Outbox
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	LogReview(ctx context.Context, r domain.Review, m domain.Movie, idem *review.Idempotency) (review.Logged, error)
	DeleteReview(ctx context.Context, id uuid.UUID, check func(domain.Review) error) error
	SaveMovieEnrichment(ctx context.Context, e enrichment.MovieEnrichment) error
	SavePersonEnrichment(ctx context.Context, id uuid.UUID, p enrichment.Person, at time.Time) error

	IndexMovie(ctx context.Context, id uuid.UUID, onlyIfMissing bool) error
	RemoveMovie(ctx context.Context, id uuid.UUID) error
	Reindex(ctx context.Context, page int) error
	SearchMovies(ctx context.Context, q search.Query) (domain.Paged[search.MovieHit], error)
	SearchPeople(ctx context.Context, q search.Query) (domain.Paged[search.PersonHit], error)
}

// searchFixture is a small catalog where one word, "nostromo", is in one movie's title, in
// another's cast and in a third's overview, so the column weights alone decide its ranking.
type searchFixture struct {
	user                               domain.User
	titled, cast, overview, other, acc domain.Movie
	reviews                            []uuid.UUID
}

// addMovie logs a review of a new movie with title, year, director and language, and returns
// it.
func (f *searchFixture) addMovie(t *testing.T, s Search, ext, title string, year int) domain.Movie {
	t.Helper()
	r := newReview(f.user.ID, 3, len(f.reviews)+1)
	got, err := s.LogReview(context.Background(), r, domain.Movie{ExternalID: &ext, Title: title, ReleaseYear: year}, nil)
	must(t, err)
	f.reviews = append(f.reviews, r.ID)
	return got.Movie
}

// newSearchFixture stores the fixture's movies; with enrich their enrichments too, which index
// them.
func newSearchFixture(t *testing.T, s Search, enrich bool) searchFixture {
	t.Helper()
	ctx := context.Background()
	f := searchFixture{user: createUser(t, s, "alice")}
	f.titled = f.addMovie(t, s, "tmdb:1", "Nostromo", 1979)
	f.cast = f.addMovie(t, s, "tmdb:2", "Deep Crew", 1986)
	f.overview = f.addMovie(t, s, "tmdb:3", "Cargo Run", 1990)
	f.other = f.addMovie(t, s, "tmdb:4", "Quiet Harbour", 2001)
	f.acc = f.addMovie(t, s, "tmdb:5", "Le Fabuleux Destin d'Amélie Poulain", 2001)
	if !enrich {
		return f
	}
	at := t0
	must(t, s.SaveMovieEnrichment(ctx, movieEnrichment(f.titled.ID, at, "A towing ship answers a signal.", []string{"space"},
		person(101, "Ridley Scott"), person(102, "Sigourney Weaver"))))
	must(t, s.SaveMovieEnrichment(ctx, movieEnrichment(f.cast.ID, at, "Divers find a wreck.", []string{"sea"},
		person(103, "James Cameron"), person(104, "Nostromo Jones"))))
	must(t, s.SaveMovieEnrichment(ctx, movieEnrichment(f.overview.ID, at, "A freighter named after the nostromo sails.", []string{"cargo"},
		person(105, "Anne Other"))))
	must(t, s.SaveMovieEnrichment(ctx, movieEnrichment(f.other.ID, at, "Nothing happens.", nil, person(106, "Sigrid Quiet"))))
	e := movieEnrichment(f.acc.ID, at, "Paris.", nil, person(107, "Jean-Pierre Jeunet"))
	e.Genres, e.OriginalLanguage = []string{"Comedy"}, ref("fr")
	must(t, s.SaveMovieEnrichment(ctx, e))
	return f
}

// movieIDs are the hits' ids, in order.
func movieIDs(p domain.Paged[search.MovieHit], err error) ([]uuid.UUID, error) {
	out := make([]uuid.UUID, 0, len(p.Items))
	for _, h := range p.Items {
		out = append(out, h.ID)
	}
	return out, err
}

// RunSearch runs the full-text search cases against stores open makes: the same queries give the
// same results in the same order on both stores.
func RunSearch(t *testing.T, open func(t *testing.T, faults *Faults) Search) {
	ctx := context.Background()
	all := domain.Page{Limit: 20}

	t.Run("RankingAndPrefix", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		f := newSearchFixture(t, s, true)
		want := []uuid.UUID{f.titled.ID, f.cast.ID, f.overview.ID}
		for _, text := range []string{"nostromo", "NOSTROMO", "nost", "  no"} {
			got, err := movieIDs(s.SearchMovies(ctx, search.Query{Text: text, Page: all}))
			must(t, err)
			if text == "  no" {
				// A two-letter prefix also matches "Nothing" in the fourth movie's overview;
				// the title match still leads.
				if len(got) < 3 || got[0] != f.titled.ID {
					t.Errorf("%q: %v, want the title match first", text, got)
				}
				continue
			}
			if !slices.Equal(got, want) {
				t.Errorf("%q: %v, want title, cast, overview matches in that order %v", text, got, want)
			}
		}
		// Every word must match; the last one is a prefix.
		got, err := movieIDs(s.SearchMovies(ctx, search.Query{Text: "ridley nostr", Page: all}))
		must(t, err)
		if !slices.Equal(got, []uuid.UUID{f.titled.ID}) {
			t.Errorf("two words: %v, want the titled movie only", got)
		}
		// Not a prefix unless last.
		if got, err = movieIDs(s.SearchMovies(ctx, search.Query{Text: "nostr ridley", Page: all})); err != nil || len(got) != 0 {
			t.Errorf("a non-final partial word matched %v, %v", got, err)
		}
		// Diacritics do not matter, either way round.
		for _, text := range []string{"amelie", "Amélie", "AMEL"} {
			got, err := movieIDs(s.SearchMovies(ctx, search.Query{Text: text, Page: all}))
			must(t, err)
			if !slices.Equal(got, []uuid.UUID{f.acc.ID}) {
				t.Errorf("%q: %v, want Amélie", text, got)
			}
		}
		// Keywords and genres are searched too.
		if got, err = movieIDs(s.SearchMovies(ctx, search.Query{Text: "cargo", Page: all})); err != nil ||
			!slices.Equal(got, []uuid.UUID{f.overview.ID}) {
			t.Errorf("title and keyword cargo: %v, %v", got, err)
		}
		page, err := s.SearchMovies(ctx, search.Query{Text: "nostromo", Page: domain.Page{Limit: 1, Offset: 1}})
		must(t, err)
		if page.Total != 3 || len(page.Items) != 1 || page.Items[0].ID != f.cast.ID || page.Items[0].Title != "Deep Crew" ||
			page.Items[0].ReleaseYear != 1986 || page.Items[0].Director == nil || *page.Items[0].Director != "James Cameron" ||
			!slices.Equal(page.Items[0].Genres, []string{"Science Fiction", "Drama"}) {
			t.Errorf("second page of one %+v", page)
		}
	})

	t.Run("NoWordsAndBlank", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		f := newSearchFixture(t, s, true)
		for _, text := range []string{"!!!", "'", `"*`, "-- ;"} {
			p, err := s.SearchMovies(ctx, search.Query{Text: text, Page: all})
			if err != nil || p.Total != 0 || p.Items == nil || len(p.Items) != 0 {
				t.Errorf("%q: %+v, %v; want no hits and no error", text, p, err)
			}
			pp, err := s.SearchPeople(ctx, search.Query{Text: text, Page: all})
			if err != nil || pp.Total != 0 || len(pp.Items) != 0 {
				t.Errorf("people %q: %+v, %v", text, pp, err)
			}
		}
		// Syntax of either engine is only words here.
		for _, text := range []string{"nostromo & !ridley", "nostromo OR cargo", "nostromo:*", "title:nostromo"} {
			if _, err := s.SearchMovies(ctx, search.Query{Text: text, Page: all}); err != nil {
				t.Errorf("%q: %v", text, err)
			}
		}
		// Blank text lists every movie by title, filtered.
		got, err := movieIDs(s.SearchMovies(ctx, search.Query{Page: all}))
		must(t, err)
		want := []uuid.UUID{f.overview.ID, f.cast.ID, f.acc.ID, f.titled.ID, f.other.ID}
		if !slices.Equal(got, want) {
			t.Errorf("blank: %v, want by title %v", got, want)
		}
		year := 2001
		if got, err = movieIDs(s.SearchMovies(ctx, search.Query{Year: &year, Page: all})); err != nil ||
			!slices.Equal(got, []uuid.UUID{f.acc.ID, f.other.ID}) {
			t.Errorf("year 2001: %v, %v", got, err)
		}
		if got, err = movieIDs(s.SearchMovies(ctx, search.Query{Genre: "comedy", Language: "FR", Page: all})); err != nil ||
			!slices.Equal(got, []uuid.UUID{f.acc.ID}) {
			t.Errorf("genre and language without case: %v, %v", got, err)
		}
		sig := enrichment.PersonID(102)
		if got, err = movieIDs(s.SearchMovies(ctx, search.Query{Text: "nostromo", PersonID: &sig, Page: all})); err != nil ||
			!slices.Equal(got, []uuid.UUID{f.titled.ID}) {
			t.Errorf("person filter: %v, %v", got, err)
		}
	})

	t.Run("People", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		f := newSearchFixture(t, s, true)
		p, err := s.SearchPeople(ctx, search.Query{Text: "sig", Page: all})
		must(t, err)
		if p.Total != 2 || p.Items[0].Name != "Sigourney Weaver" && p.Items[0].Name != "Sigrid Quiet" {
			t.Fatalf("people sig: %+v", p)
		}
		p, err = s.SearchPeople(ctx, search.Query{Text: "ridley scott", Page: all})
		must(t, err)
		if p.Total != 1 || p.Items[0].ID != enrichment.PersonID(101) || p.Items[0].KnownForDepartment == nil ||
			!slices.Equal(p.Items[0].KnownForTitles, []string{"Nostromo"}) {
			t.Fatalf("ridley scott: %+v", p)
		}
		p, err = s.SearchPeople(ctx, search.Query{Text: "jean pierre", Page: all})
		must(t, err)
		if p.Total != 1 || p.Items[0].Name != "Jean-Pierre Jeunet" {
			t.Fatalf("a hyphenated name by its parts: %+v", p)
		}
		p, err = s.SearchPeople(ctx, search.Query{Department: "ACTING", Page: all})
		must(t, err)
		if p.Total != 7 || p.Items[0].Name != "Anne Other" {
			t.Fatalf("everyone by name: total %d, first %+v", p.Total, p.Items)
		}
		if p, err = s.SearchPeople(ctx, search.Query{Department: "Sound", Page: all}); err != nil || p.Total != 0 {
			t.Fatalf("department with nobody: %+v, %v", p, err)
		}
		// A renamed person is found by the new name.
		must(t, s.SavePersonEnrichment(ctx, enrichment.PersonID(106), enrichment.Person{TMDbID: 106, Name: "Sigrun Loud"}, t0))
		p, err = s.SearchPeople(ctx, search.Query{Text: "loud", Page: all})
		must(t, err)
		if p.Total != 1 || p.Items[0].Name != "Sigrun Loud" {
			t.Fatalf("renamed: %+v", p)
		}
		// The movie's last review deleted, the movie and its document go; its people's documents
		// go when the index removes the movie.
		must(t, s.DeleteReview(ctx, f.reviews[3], func(domain.Review) error { return nil }))
		must(t, s.RemoveMovie(ctx, f.other.ID))
		if p, err = s.SearchPeople(ctx, search.Query{Text: "loud", Page: all}); err != nil || p.Total != 0 {
			t.Fatalf("a person left without credits still found: %+v, %v", p, err)
		}
		if got, err := movieIDs(s.SearchMovies(ctx, search.Query{Text: "quiet", Page: all})); err != nil || len(got) != 0 {
			t.Fatalf("a deleted movie still found: %v, %v", got, err)
		}
	})

	t.Run("IndexAndReindex", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		f := newSearchFixture(t, s, false)
		total := func(text string) int {
			t.Helper()
			p, err := s.SearchMovies(ctx, search.Query{Text: text, Page: all})
			must(t, err)
			return p.Total
		}
		if n := total("nostromo"); n != 0 {
			t.Fatalf("%d hits before any indexing", n)
		}
		must(t, s.IndexMovie(ctx, f.titled.ID, true))
		must(t, s.IndexMovie(ctx, f.titled.ID, true))
		must(t, s.IndexMovie(ctx, f.titled.ID, false))
		if p, _ := s.SearchMovies(ctx, search.Query{Page: all}); p.Total != 1 {
			t.Fatalf("%d documents after indexing one movie thrice, want 1", p.Total)
		}
		must(t, s.IndexMovie(ctx, uuid.New(), false)) // gone: nothing to index, no error
		before := events(t, s)
		must(t, s.Reindex(ctx, 2))
		if p, _ := s.SearchMovies(ctx, search.Query{Page: all}); p.Total != 5 || events(t, s) != before {
			t.Fatalf("%d documents after a reindex in pages of 2 (%d events), want 5", p.Total, events(t, s)-before)
		}
		must(t, s.Reindex(ctx, 100))
		if p, _ := s.SearchMovies(ctx, search.Query{Page: all}); p.Total != 5 {
			t.Fatalf("%d documents after a second reindex, want still 5", p.Total)
		}
		if n := total("amel"); n != 1 {
			t.Fatalf("prefix after reindex: %d", n)
		}
		must(t, s.RemoveMovie(ctx, f.acc.ID))
		must(t, s.RemoveMovie(ctx, f.acc.ID))
		if n := total("amel"); n != 0 {
			t.Fatalf("a removed document still found: %d", n)
		}
	})
}
