package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/tmdb"
)

// fakeTMDb answers /find for tt0113277 and /movie/949 the way TMDb does; broken makes it fail.
func fakeTMDb(t *testing.T, broken *atomic.Bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if broken.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		if r.URL.Query().Get("api_key") != "k" {
			http.Error(w, "bad key", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/find/tt0113277":
			_, _ = w.Write([]byte(`{"movie_results":[{"id":949}]}`))
		case "/movie/949":
			_, _ = w.Write([]byte(`{"id":949,"title":"Heat","release_date":"1995-12-15","runtime":170,
				"genres":[{"id":80,"name":"Crime"}],"credits":{"crew":[{"job":"Producer","name":"Art Linson"},
				{"job":"Director","name":"Michael Mann"}]}}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestMovieResolution(t *testing.T) {
	t.Parallel()
	var broken atomic.Bool
	api := fakeTMDb(t, &broken)
	b := setup(t, options{metadata: tmdb.New(api.URL, "k", api.Client())})
	a := b.register("alice")
	type logged struct {
		Movie struct {
			ID          uuid.UUID `json:"id"`
			Title       string    `json:"title"`
			ReleaseYear int       `json:"release_year"`
			Director    *string   `json:"director"`
			Genres      []string  `json:"genres"`
		} `json:"movie"`
	}
	post := func(body map[string]any) response {
		body["rating"], body["watched_at"] = 4, "2024-03-01"
		return b.do(req{method: "POST", path: "/api/v1/reviews", token: a.token, body: body})
	}

	var got logged
	if r := post(map[string]any{"external_metadata_id": "tt0113277"}); r.status != 201 {
		t.Fatalf("review by IMDb id = %d %s", r.status, r.body)
	} else {
		r.json(t, &got)
	}
	m := got.Movie
	if m.Title != "Heat" || m.ReleaseYear != 1995 || m.Director == nil || *m.Director != "Michael Mann" ||
		m.ID != uuid.NewSHA1(uuid.NameSpaceURL, []byte("tt0113277")) || len(m.Genres) != 1 {
		t.Errorf("movie from TMDb = %+v, want Heat (1995) by Michael Mann with id UUIDv5(tt0113277)", m)
	}
	// Known movies resolve from the database, without asking TMDb.
	broken.Store(true)
	if r := post(map[string]any{"external_metadata_id": " tt0113277 "}); r.status != 201 {
		t.Errorf("known movie with TMDb down = %d %s", r.status, r.body)
	}
	// TMDb down: the manual fields are the fallback, and without them the request is refused.
	if r := post(map[string]any{"external_metadata_id": "tmdb:500"}); r.status != 400 {
		t.Errorf("unknown movie, TMDb down, no manual fields = %d %s, want 400", r.status, r.body)
	}
	if r := post(map[string]any{"external_metadata_id": "tmdb:500", "manual_title": "Reservoir Dogs", "manual_release_year": 1992}); r.status != 201 {
		t.Errorf("unknown movie, TMDb down, manual fields = %d %s, want 201", r.status, r.body)
	} else {
		r.json(t, &got)
		if got.Movie.Title != "Reservoir Dogs" || got.Movie.ID != uuid.NewSHA1(uuid.NameSpaceURL, []byte("tmdb:500")) {
			t.Errorf("fallback movie = %+v", got.Movie)
		}
	}
	// Manual movies match on title and year, and on the director when one is given.
	post(map[string]any{"manual_title": "Solaris", "manual_release_year": 1972, "manual_director": "Andrei Tarkovsky"}).json(t, &got)
	first := got.Movie.ID
	post(map[string]any{"manual_title": "SOLARIS", "manual_release_year": 1972}).json(t, &got)
	if got.Movie.ID != first {
		t.Error("title and year did not match the existing manual movie")
	}
	post(map[string]any{"manual_title": "Solaris", "manual_release_year": 1972, "manual_director": "Steven Soderbergh"}).json(t, &got)
	if got.Movie.ID == first {
		t.Error("a different director matched the same manual movie")
	}
}
