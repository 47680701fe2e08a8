package tmdb_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"moviesdiary/internal/adapters/tmdb"
	"moviesdiary/internal/adapters/tmdb/tmdbtest"
	"moviesdiary/internal/domain"
	usemovie "moviesdiary/internal/usecase/movie"
)

func TestSearchWireFormat(t *testing.T) {
	t.Parallel()
	fake := tmdbtest.New(t)
	var mu sync.Mutex
	var sent url.Values
	fake.SetOverride(func(_ http.ResponseWriter, r *http.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		sent = r.URL.Query()
		return false
	})
	c := fake.Client()
	ctx := context.Background()
	page, err := c.Search(ctx, tmdb.SearchQuery{Query: " solaris ", Year: 1972, PrimaryReleaseYear: 1972, Language: "de-DE", Page: 1})
	if err != nil {
		t.Fatal(err)
	}
	if page.Page != 1 || page.TotalResults != 1 || page.TotalPages != 1 || len(page.Results) != 1 {
		t.Fatalf("page = %+v, want Tarkovsky's Solaris alone", page)
	}
	r := page.Results[0]
	if r.ID != 593 || r.Title != "Solaris" || r.OriginalTitle != "Солярис" || r.ReleaseDate != "1972-03-20" || r.Year() != 1972 ||
		r.PosterPath == "" {
		t.Errorf("result = %+v", r)
	}
	mu.Lock()
	want := url.Values{"query": {"solaris"}, "year": {"1972"}, "primary_release_year": {"1972"}, "language": {"de-DE"},
		"include_adult": {"false"}, "api_key": {tmdbtest.Key}}
	if sent.Encode() != want.Encode() {
		t.Errorf("sent %s, want %s", sent.Encode(), want.Encode())
	}
	mu.Unlock()

	cands, err := c.SearchMovies(ctx, usemovie.TitleQuery{Title: "Solaris"})
	if err != nil || len(cands) != 2 || cands[0].Year == cands[1].Year {
		t.Fatalf("SearchMovies(Solaris) = %+v, %v; want both Solaris", cands, err)
	}
	cands, err = c.SearchMovies(ctx, usemovie.TitleQuery{Title: "Solaris", Year: 2002})
	if err != nil || len(cands) != 1 || cands[0].TMDbID != 2103 || cands[0].ExternalID() != "tmdb:2103" {
		t.Fatalf("SearchMovies(Solaris, 2002) = %+v, %v; want Soderbergh's", cands, err)
	}
	if cands, err := c.SearchMovies(ctx, usemovie.TitleQuery{Title: "No Such Film"}); err != nil || len(cands) != 0 {
		t.Errorf("SearchMovies(no such film) = %+v, %v; want none", cands, err)
	}
	if n := fake.Count("/3/search/movie"); n != 4 {
		t.Errorf("%d search requests, want 4", n)
	}
}

func TestFindIMDb(t *testing.T) {
	t.Parallel()
	fake := tmdbtest.New(t)
	c := fake.Client()
	ctx := context.Background()
	got, err := c.FindIMDb(ctx, "tt2543164")
	if err != nil || got.TMDbID != 329865 || got.Title != "Arrival" || got.Year != 2016 {
		t.Fatalf("FindIMDb(tt2543164) = %+v, %v; want Arrival", got, err)
	}
	if got, err := c.FindIMDb(ctx, "tt0083658"); err != nil || got.TMDbID != 78 {
		t.Errorf("FindIMDb(tt0083658) = %+v, %v; want Blade Runner from the fixture", got, err)
	}
	_, err = c.FindIMDb(ctx, "tt0000001")
	if !errors.Is(err, domain.ErrNotFound) || !domain.IsPermanent(err) {
		t.Errorf("FindIMDb(unknown) = %v, want a permanent not found", err)
	}
	if _, err := c.FindIMDb(ctx, "tmdb:5"); err == nil || !domain.IsPermanent(err) {
		t.Errorf("FindIMDb(tmdb:5) = %v, want a permanent error without a request", err)
	}
	if n := fake.Count("/3/find/tmdb:5"); n != 0 {
		t.Errorf("tmdb:5 sent to /find %d times", n)
	}
}

// TestSearchWaitsOutRetryAfter: a 429 with Retry-After is waited out through the pacer and the
// search retried, once.
func TestSearchWaitsOutRetryAfter(t *testing.T) {
	t.Parallel()
	fake := tmdbtest.New(t)
	var mu sync.Mutex
	limited := 0
	fake.SetOverride(func(w http.ResponseWriter, r *http.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		if limited > 0 {
			return false
		}
		limited++
		status(http.StatusTooManyRequests, "1")(w, r)
		return true
	})
	cands, err := fake.Client().SearchMovies(context.Background(), usemovie.TitleQuery{Title: "Arrival"})
	if err != nil || len(cands) != 1 || cands[0].TMDbID != 329865 {
		t.Fatalf("SearchMovies after a 429 = %+v, %v", cands, err)
	}
	if n := fake.Count("/3/search/movie"); n != 2 {
		t.Errorf("%d search requests, want 2 (the 429, then the answer)", n)
	}
	// Past the wait budget the 429 is a transient error that says how long to wait.
	fake.SetOverride(func(w http.ResponseWriter, r *http.Request) bool { status(429, "120")(w, r); return true })
	_, err = fake.Client().SearchMovies(context.Background(), usemovie.TitleQuery{Title: "Arrival"})
	var se *tmdb.StatusError
	if !errors.As(err, &se) || se.RetryAfter.Seconds() != 120 || domain.IsPermanent(err) {
		t.Errorf("429 past the budget = %v, want a transient StatusError with Retry-After", err)
	}
}

func TestSearchGarbage(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		body    string
		find    bool
		wantErr string // "" for no error
		want    int    // usable results
	}{
		{name: "html", body: "<html>oops", wantErr: "decode"},
		{name: "empty body", body: "", wantErr: "decode"},
		{name: "not a search page", body: `{"status_code":34,"status_message":"The resource you requested could not be found."}`,
			wantErr: "not a search page"},
		{name: "null results", body: `{"page":1,"results":null}`, wantErr: "not a search page"},
		{name: "results of the wrong type", body: `{"page":1,"results":"nope"}`, wantErr: "decode"},
		{name: "empty answer", body: `{"page":1,"results":[],"total_pages":0,"total_results":0}`},
		{name: "results without id or title, duplicates", want: 1,
			body: `{"page":1,"results":[{"id":0,"title":"Zero"},{"id":5,"title":"  "},{"id":-1,"title":"Neg"},` +
				`{"id":7,"title":"Seven","release_date":"garbage"},{"id":7,"title":"Seven"}],"total_pages":1,"total_results":5}`},
		{name: "find without movie_results", find: true, body: `{"person_results":[]}`, wantErr: "not a find result"},
		{name: "find with garbage", find: true, body: `[1,2,3]`, wantErr: "decode"},
		{name: "find, empty", find: true, body: `{"movie_results":[],"person_results":[]}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fake := tmdbtest.New(t)
			fake.SetOverride(func(w http.ResponseWriter, r *http.Request) bool {
				body("application/json", tc.body)(w, r)
				return true
			})
			c := fake.Client()
			var n int
			var err error
			if tc.find {
				var rs []tmdb.SearchResult
				rs, err = c.Find(context.Background(), "tt0000001")
				n = len(rs)
			} else {
				var p tmdb.SearchPage
				p, err = c.Search(context.Background(), tmdb.SearchQuery{Query: "x"})
				n = len(p.Results)
				for _, r := range p.Results {
					if r.Year() != 0 {
						t.Errorf("year %d from %q", r.Year(), r.ReleaseDate)
					}
				}
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
			case tc.wantErr != "" && domain.IsPermanent(err):
				t.Errorf("garbage is permanent (%v); a broken answer is retried", err)
			}
			if n != tc.want {
				t.Errorf("%d usable results, want %d", n, tc.want)
			}
		})
	}
	if _, err := tmdbtest.New(t).Client().Search(context.Background(), tmdb.SearchQuery{Query: "  "}); err == nil || !domain.IsPermanent(err) {
		t.Errorf("blank query: %v, want a permanent error", err)
	}
}

// TestMatchTitleAgainstTheFake: the matcher over the real client and the fake's catalogue.
func TestMatchTitleAgainstTheFake(t *testing.T) {
	t.Parallel()
	cases := []struct {
		w        usemovie.Wanted
		match    int64
		requests int // to the fake, in all
	}{
		{w: usemovie.Wanted{Title: "arrival", Year: 2016}, match: 329865, requests: 1},
		{w: usemovie.Wanted{Title: "Solaris", Year: 1972}, match: 593, requests: 1},
		{w: usemovie.Wanted{Title: "Thing, The", Year: 2011}, match: 60935, requests: 1},
		{w: usemovie.Wanted{Title: "Amelie", Year: 2001}, match: 194, requests: 1},
		{w: usemovie.Wanted{Title: "Twin Film", Year: 2000}, requests: 1},
		{w: usemovie.Wanted{Title: "Twin Film", Year: 2000, Director: "Bob Director"}, match: 900002, requests: 3},
		{w: usemovie.Wanted{Title: "Twin Film", Year: 2000, Director: "Nobody"}, requests: 3},
		{w: usemovie.Wanted{Title: "Solaris", Year: 1990}, requests: 1},
	}
	for _, tc := range cases {
		t.Run(tc.w.Title, func(t *testing.T) {
			t.Parallel()
			fake := tmdbtest.New(t)
			c, v, err := usemovie.MatchTitle(context.Background(), fake.Client(), tc.w)
			if err != nil {
				t.Fatal(err)
			}
			if v.OK != (tc.match != 0) || c.TMDbID != tc.match {
				t.Errorf("%+v: verdict %+v, want match %d", tc.w, v, tc.match)
			}
			if n := fake.Total(); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
		})
	}
}
