package movie_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/movie"
)

// fakeMetadata is the provider port with func fields; a nil func fails the test when called.
type fakeMetadata struct {
	t          *testing.T
	LookupFunc func(ctx context.Context, ext string) (domain.Movie, error)
	SearchFunc func(ctx context.Context, q movie.TitleQuery) ([]movie.Candidate, error)
	FindFunc   func(ctx context.Context, imdbID string) (movie.Candidate, error)
	calls      atomic.Int32
}

func (f *fakeMetadata) LookupMovie(ctx context.Context, ext string) (domain.Movie, error) {
	f.calls.Add(1)
	if f.LookupFunc == nil {
		f.t.Errorf("unexpected LookupMovie(%s)", ext)
		return domain.Movie{}, errors.New("unexpected")
	}
	return f.LookupFunc(ctx, ext)
}

func (f *fakeMetadata) SearchMovies(ctx context.Context, q movie.TitleQuery) ([]movie.Candidate, error) {
	f.calls.Add(1)
	if f.SearchFunc == nil {
		f.t.Errorf("unexpected SearchMovies(%+v)", q)
		return nil, errors.New("unexpected")
	}
	return f.SearchFunc(ctx, q)
}

func (f *fakeMetadata) FindIMDb(ctx context.Context, imdbID string) (movie.Candidate, error) {
	f.calls.Add(1)
	if f.FindFunc == nil {
		f.t.Errorf("unexpected FindIMDb(%s)", imdbID)
		return movie.Candidate{}, errors.New("unexpected")
	}
	return f.FindFunc(ctx, imdbID)
}

// fakeLookup is the store's by-external-id lookup over a map; err fails every lookup.
type fakeLookup struct {
	movies map[string]domain.Movie
	err    error
}

func (l fakeLookup) MovieByExternalID(_ context.Context, ext string) (domain.Movie, error) {
	if l.err != nil {
		return domain.Movie{}, l.err
	}
	if m, ok := l.movies[ext]; ok {
		return m, nil
	}
	return domain.Movie{}, domain.NotFound("no movie %s", ext)
}

var (
	arrival   = movie.Candidate{TMDbID: 329865, Title: "Arrival", OriginalTitle: "Arrival", Year: 2016}
	solaris72 = movie.Candidate{TMDbID: 593, Title: "Solaris", Year: 1972}
	solaris02 = movie.Candidate{TMDbID: 2103, Title: "Solaris", Year: 2002}
)

func searchAnswers(cands ...movie.Candidate) func(context.Context, movie.TitleQuery) ([]movie.Candidate, error) {
	return func(context.Context, movie.TitleQuery) ([]movie.Candidate, error) { return cands, nil }
}

func manualReq(title string, year int, director string) movie.Request {
	r := movie.Request{ManualTitle: &title, ManualYear: &year}
	if director != "" {
		r.ManualDirector = &director
	}
	return r
}

func TestResolveByTitle(t *testing.T) {
	t.Parallel()
	stored := domain.Movie{ID: domain.MovieIDFor("tmdb:329865"), ExternalID: ptr("tmdb:329865"), Title: "Arrival", ReleaseYear: 2016}
	cases := []struct {
		name     string
		req      movie.Request
		search   func(context.Context, movie.TitleQuery) ([]movie.Candidate, error)
		lookup   fakeLookup
		wantExt  string // "" for the manual movie
		wantID   bool   // the stored movie's id
		wantErr  bool
		wantName string
	}{
		{name: "confident match, new film", req: manualReq("arrival", 2016, ""), search: searchAnswers(solaris72, arrival),
			wantExt: "tmdb:329865", wantName: "Arrival"},
		{name: "confident match, stored film", req: manualReq("Arrival", 2016, ""), search: searchAnswers(arrival),
			lookup: fakeLookup{movies: map[string]domain.Movie{"tmdb:329865": stored}}, wantExt: "tmdb:329865", wantID: true,
			wantName: "Arrival"},
		{name: "no candidate", req: manualReq("My Home Video", 2016, ""), search: searchAnswers(), wantName: "My Home Video"},
		{name: "namesake of another year only", req: manualReq("Solaris", 1990, ""), search: searchAnswers(solaris72, solaris02),
			wantName: "Solaris"},
		{name: "outage", req: manualReq("Arrival", 2016, ""), wantName: "Arrival",
			search: func(context.Context, movie.TitleQuery) ([]movie.Candidate, error) { return nil, errors.New("503") }},
		{name: "over the budget", req: manualReq("Arrival", 2016, ""), wantName: "Arrival",
			search: func(ctx context.Context, _ movie.TitleQuery) ([]movie.Candidate, error) {
				<-ctx.Done() // a provider that never answers: the budget ends the wait
				return nil, ctx.Err()
			}},
		{name: "store fails after a match", req: manualReq("Arrival", 2016, ""), search: searchAnswers(arrival),
			lookup: fakeLookup{err: errors.New("disk on fire")}, wantErr: true},
		{name: "invalid manual fields never reach the provider", req: movie.Request{ManualTitle: ptr("Arrival")}, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			md := &fakeMetadata{t: t, SearchFunc: tc.search}
			r := movie.NewResolver(tc.lookup, md, nil).WithBudget(50 * time.Millisecond)
			m, err := r.Resolve(context.Background(), tc.req)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Resolve = %+v, %v; want error %v", m, err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if m.Title != tc.wantName {
				t.Errorf("title %q, want %q", m.Title, tc.wantName)
			}
			if tc.wantExt == "" {
				if m.ExternalID != nil || m.ID != [16]byte{} {
					t.Errorf("got %v / %s, want the manual movie (no id, no external id)", m.ExternalID, m.ID)
				}
				return
			}
			if m.ExternalID == nil || *m.ExternalID != tc.wantExt || m.ID != domain.MovieIDFor(tc.wantExt) {
				t.Errorf("got %v / %s, want %s", m.ExternalID, m.ID, tc.wantExt)
			}
			if tc.wantID && m.ID != stored.ID {
				t.Errorf("not the stored movie: %+v", m)
			}
		})
	}
}

func TestResolveWithoutProvider(t *testing.T) {
	t.Parallel()
	m, err := movie.NewResolver(fakeLookup{}, nil, nil).Resolve(context.Background(), manualReq("Arrival", 2016, "Denis Villeneuve"))
	if err != nil || m.ExternalID != nil || m.Title != "Arrival" || m.Director == nil {
		t.Fatalf("Resolve = %+v, %v; want the manual movie", m, err)
	}
}

// TestResolveDirectorDisambiguates: two films share title and year; the director given decides,
// at the cost of one details call each.
func TestResolveDirectorDisambiguates(t *testing.T) {
	t.Parallel()
	a := movie.Candidate{TMDbID: 1, Title: "Twin Film", Year: 2000}
	b := movie.Candidate{TMDbID: 2, Title: "Twin Film", Year: 2000}
	md := &fakeMetadata{t: t, SearchFunc: searchAnswers(a, b),
		LookupFunc: func(_ context.Context, ext string) (domain.Movie, error) {
			d := map[string]string{"tmdb:1": "Ann Director", "tmdb:2": "Bob Director"}[ext]
			return domain.Movie{Title: "Twin Film", ReleaseYear: 2000, Director: &d}, nil
		}}
	m, err := movie.NewResolver(fakeLookup{}, md, nil).Resolve(context.Background(), manualReq("Twin Film", 2000, "Bob Director"))
	if err != nil || m.ExternalID == nil || *m.ExternalID != "tmdb:2" || m.Director == nil || *m.Director != "Bob Director" {
		t.Fatalf("Resolve = %+v, %v; want tmdb:2", m, err)
	}
	if n := md.calls.Load(); n != 3 {
		t.Errorf("%d provider calls, want 3 (a search, two details)", n)
	}
	md.calls.Store(0)
	m, err = movie.NewResolver(fakeLookup{}, md, nil).Resolve(context.Background(), manualReq("Twin Film", 2000, ""))
	if err != nil || m.ExternalID != nil {
		t.Fatalf("without a director: %+v, %v; want the manual movie", m, err)
	}
	if n := md.calls.Load(); n != 1 {
		t.Errorf("%d provider calls without a director, want 1", n)
	}
}

// TestResolveIMDbIDStoredUnderTMDbID: an IMDb id names the film a tmdb:N movie already holds.
func TestResolveIMDbIDStoredUnderTMDbID(t *testing.T) {
	t.Parallel()
	stored := domain.Movie{ID: domain.MovieIDFor("tmdb:329865"), ExternalID: ptr("tmdb:329865"), Title: "Arrival", ReleaseYear: 2016}
	md := &fakeMetadata{t: t, FindFunc: func(_ context.Context, id string) (movie.Candidate, error) {
		if id != "tt2543164" {
			return movie.Candidate{}, domain.NotFound("no %s", id)
		}
		return arrival, nil
	}, LookupFunc: func(_ context.Context, ext string) (domain.Movie, error) {
		if ext != "tmdb:1091" {
			t.Errorf("details of %s, want tmdb:1091", ext)
		}
		return domain.Movie{Title: "The Thing", ReleaseYear: 1982}, nil
	}}
	r := movie.NewResolver(fakeLookup{movies: map[string]domain.Movie{"tmdb:329865": stored}}, md, nil)
	m, err := r.Resolve(context.Background(), movie.Request{ExternalID: "tt2543164"})
	if err != nil || m.ID != stored.ID {
		t.Fatalf("Resolve(tt2543164) = %+v, %v; want the movie stored as tmdb:329865", m, err)
	}
	md.FindFunc = func(context.Context, string) (movie.Candidate, error) {
		return movie.Candidate{TMDbID: 1091, Title: "The Thing", Year: 1982}, nil
	}
	m, err = r.Resolve(context.Background(), movie.Request{ExternalID: "tt0084787"})
	if err != nil || m.ExternalID == nil || *m.ExternalID != "tt0084787" || m.ID != domain.MovieIDFor("tt0084787") || m.Title != "The Thing" {
		t.Fatalf("Resolve(tt0084787) = %+v, %v; want a new movie under its IMDb id", m, err)
	}
}

func ptr[T any](v T) *T { return &v }
