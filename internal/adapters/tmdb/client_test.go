package tmdb_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/adapters/tmdb"
	"moviesdiary/internal/adapters/tmdb/tmdbtest"
	"moviesdiary/internal/domain"
)

func TestMovieWithCreditsAndKeywords(t *testing.T) {
	t.Parallel()
	fake := tmdbtest.New(t)
	c := fake.Client()
	ctx := context.Background()
	id, err := c.MovieID(ctx, "tt0083658")
	if err != nil || id != 78 {
		t.Fatalf("MovieID(tt0083658) = %d, %v; want 78", id, err)
	}
	if id, err := c.MovieID(ctx, "tmdb:78"); err != nil || id != 78 {
		t.Fatalf("MovieID(tmdb:78) = %d, %v; want 78 without a request", id, err)
	}
	if n := fake.Count("/3/find/tmdb:78"); n != 0 {
		t.Errorf("tmdb:N looked up with /find %d times", n)
	}
	m, err := c.Movie(ctx, 78)
	if err != nil {
		t.Fatal(err)
	}
	if m.Title != "Blade Runner" || m.Year() != 1982 || m.IMDbID != "tt0083658" || *m.Runtime != 118 ||
		len(m.Genres) != 3 || len(m.Keywords.Keywords) != 4 || len(m.Credits.Cast) != 4 || len(m.Credits.Crew) != 3 ||
		m.Collection == nil || m.Collection.Name != "Blade Runner Collection" || m.PosterPath == "" {
		t.Errorf("movie 78 = %+v", m)
	}
	p, err := c.Person(ctx, 3)
	if err != nil || p.Name != "Harrison Ford" || p.Birthday == nil || *p.Birthday != "1942-07-13" || p.Deathday != nil {
		t.Errorf("person 3 = %+v, %v", p, err)
	}
	img, err := c.Image(ctx, "w500", m.PosterPath)
	if err != nil || !bytes.Equal(img, tmdbtest.PosterJPEG()) {
		t.Errorf("poster download: %d bytes, %v", len(img), err)
	}
}

// TestErrorKinds pins how each upstream failure is classified: permanent ones dead-letter an
// event at once, transient ones are retried.
func TestErrorKinds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		serve     func(w http.ResponseWriter, r *http.Request)
		call      func(c *tmdb.Client) error
		permanent bool
		notFound  bool
		contains  string
	}{
		{name: "unknown movie is 404", call: movie(999), permanent: true, notFound: true, contains: "status 404"},
		{name: "unknown IMDb id", call: find("tt0000001"), permanent: true, notFound: true, contains: "no movie"},
		{name: "bad key is 401", serve: status(401, ""), call: movie(78), permanent: true, contains: "status 401"},
		{name: "rate limit is 429 with a Retry-After past the wait budget", serve: status(429, "120"), call: movie(78), contains: "retry after 2m0s"},
		{name: "server error is 503", serve: status(503, ""), call: movie(78), contains: "status 503"},
		{name: "garbage JSON", serve: body("application/json", "<html>oops"), call: movie(78), contains: "decode"},
		{name: "wrong JSON shape", serve: body("application/json", `{"id":1,"title":"Other"}`), call: movie(78), contains: "not that movie"},
		{name: "JSON over the size limit", serve: body("application/json", `{"id":78,"overview":"`+strings.Repeat("x", 5<<20)+`"}`),
			call: movie(78), permanent: true, contains: "limit"},
		{name: "image over the size limit", serve: body("image/jpeg", "\xff\xd8\xff"+strings.Repeat("x", 50<<20)),
			call: image("/a.jpg"), permanent: true, contains: "limit"},
		{name: "image that is not an image", serve: body("image/jpeg", "<html>not a picture</html>"),
			call: image("/a.jpg"), permanent: true, contains: "not an image"},
		{name: "image path that is not TMDb's", call: image("/../../etc/passwd"), permanent: true, contains: "not an image path"},
		{name: "tmdb id that is not a number", call: find("tmdb:abc"), permanent: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fake := tmdbtest.New(t)
			if tc.serve != nil {
				fake.SetOverride(func(w http.ResponseWriter, r *http.Request) bool { tc.serve(w, r); return true })
			}
			err := tc.call(fake.Client())
			if err == nil {
				t.Fatal("no error")
			}
			if got := domain.IsPermanent(err); got != tc.permanent {
				t.Errorf("permanent = %v, want %v (%v)", got, tc.permanent, err)
			}
			if got := errors.Is(err, domain.ErrNotFound); got != tc.notFound {
				t.Errorf("not found = %v, want %v (%v)", got, tc.notFound, err)
			}
			if !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("error %q does not say %q", err, tc.contains)
			}
			if strings.Contains(err.Error(), tmdbtest.Key) {
				t.Errorf("error %q leaks the API key", err)
			}
		})
	}
}

func TestRetryAfterIsExposed(t *testing.T) {
	t.Parallel()
	fake := tmdbtest.New(t)
	fake.SetOverride(func(w http.ResponseWriter, r *http.Request) bool { status(429, "120")(w, r); return true })
	err := movie(78)(fake.Client())
	var se *tmdb.StatusError
	if !errors.As(err, &se) || se.Status != 429 || se.RetryAfter != 120*time.Second {
		t.Fatalf("429 error = %#v, want a StatusError with RetryAfter 120s", err)
	}
}

// TestSlowResponseTimesOut: a server that never answers is cut off by the client's own timeout,
// whatever the caller's context, and the error is transient.
func TestSlowResponseTimesOut(t *testing.T) {
	t.Parallel()
	fake := tmdbtest.New(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	fake.SetOverride(func(w http.ResponseWriter, r *http.Request) bool {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		return true
	})
	c := tmdb.NewClient(tmdb.Config{APIURL: fake.APIURL(), APIKey: tmdbtest.Key, Timeout: 100 * time.Millisecond, HTTP: fake.Server.Client()})
	start := time.Now()
	_, err := c.Movie(context.Background(), 78)
	if err == nil || domain.IsPermanent(err) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("slow server: %v, want a transient deadline error", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s to give up", d)
	}
}

func movie(id int64) func(*tmdb.Client) error {
	return func(c *tmdb.Client) error { _, err := c.Movie(context.Background(), id); return err }
}

func find(ext string) func(*tmdb.Client) error {
	return func(c *tmdb.Client) error { _, err := c.MovieID(context.Background(), ext); return err }
}

func image(path string) func(*tmdb.Client) error {
	return func(c *tmdb.Client) error { _, err := c.Image(context.Background(), "w500", path); return err }
}

func status(code int, retryAfter string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.WriteHeader(code)
		_, _ = w.Write([]byte(`{"status_code":25,"status_message":"no"}`))
	}
}

func body(ct, b string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", ct)
		_, _ = w.Write([]byte(b))
	}
}
