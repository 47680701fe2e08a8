// Package tmdbtest is a fake TMDb for tests: an httptest server that answers the API paths and
// the image CDN the way TMDb does, from TMDb-shaped JSON fixtures, and counts every request.
package tmdbtest

import (
	"bytes"
	"embed"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/time/rate"

	"moviesdiary/internal/adapters/tmdb"
)

// Key is the API key the fake accepts; any other is a 401.
const Key = "test-key"

//go:embed testdata/*.json
var fixtures embed.FS

// Server is the fake. Its fixtures know Blade Runner (tt0083658, TMDb 78), its cast and crew, and
// Harrison Ford (person 3); its search (/search/movie), /find and /movie also know Films (or the
// films SetFilms gave it), in TMDb's wire format; every other id is a 404. Any valid image path
// serves a small JPEG. With SetRateLimit it refuses requests beyond TMDb's rate as TMDb does.
type Server struct {
	*httptest.Server
	mu      sync.Mutex
	counts  map[string]int
	limited int // limited counts the requests answered 429 by the rate limit
	hook    func(w http.ResponseWriter, r *http.Request) bool
	films   *catalogue
	limit   *rate.Limiter // nil: no rate limit
}

// New starts a fake that stops when the test ends.
func New(t testing.TB) *Server {
	s := Start()
	t.Cleanup(s.Close)
	return s
}

// Start starts a fake knowing Films outside a test (a benchmark); Close stops it.
func Start() *Server {
	s := &Server{counts: map[string]int{}, films: newCatalogue(Films)}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// SetFilms replaces the films the search, /find and /movie know beside the fixtures (Films
// until then).
func (s *Server) SetFilms(films []Film) {
	c := newCatalogue(films)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.films = c
}

// SetRateLimit makes the fake limit the API (not the image CDN) as TMDb does: beyond perSecond
// requests a second (with burst at once), a request is answered 429 with TMDb's body and a
// Retry-After in whole seconds. Zero or less removes the limit. TMDb allows about 50 a second
// per address.
func (s *Server) SetRateLimit(perSecond float64, burst int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limit = nil
	if perSecond > 0 {
		s.limit = rate.NewLimiter(rate.Limit(perSecond), max(burst, 1))
	}
}

// Limited is how many requests the rate limit refused.
func (s *Server) Limited() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.limited
}

// rateLimited answers 429 when the rate limit refuses the request now.
func (s *Server) rateLimited(w http.ResponseWriter) bool {
	s.mu.Lock()
	limit := s.limit
	s.mu.Unlock()
	if limit == nil {
		return false
	}
	r := limit.Reserve()
	d := r.Delay()
	if d == 0 {
		return false
	}
	r.Cancel() // a refused request takes no token, as at TMDb
	s.mu.Lock()
	s.limited++
	s.mu.Unlock()
	w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(d.Seconds()))))
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = w.Write([]byte(`{"success":false,"status_code":25,"status_message":"Your request count (#) is over the allowed limit of (40)."}`))
	return true
}

// APIURL is the base URL of the API (TMDB_API_URL).
func (s *Server) APIURL() string { return s.URL + "/3" }

// ImageURL is the base URL of the image CDN (TMDB_IMAGE_URL).
func (s *Server) ImageURL() string { return s.URL + "/t/p" }

// Client is a tmdb client of the fake with the right key, unpaced (the fake has no rate limit)
// but waiting out 429s like the real one.
func (s *Server) Client() *tmdb.Client {
	return tmdb.NewClient(tmdb.Config{APIURL: s.APIURL(), ImageURL: s.ImageURL(), APIKey: Key, HTTP: s.Server.Client(),
		RequestsPerSecond: -1})
}

// SetOverride makes f see every request first (nil removes it); f returning true means it
// answered. Tests inject failures with it.
func (s *Server) SetOverride(f func(w http.ResponseWriter, r *http.Request) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hook = f
}

// Count is how many requests reached a path ("/3/movie/78", "/t/p/w500/x.jpg").
func (s *Server) Count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[path]
}

// Total is how many requests reached the fake.
func (s *Server) Total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.counts {
		n += c
	}
	return n
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.counts[r.URL.Path]++
	hook := s.hook
	s.mu.Unlock()
	if hook != nil && hook(w, r) {
		return
	}
	if rest, ok := strings.CutPrefix(r.URL.Path, "/t/p/"); ok {
		size, file, _ := strings.Cut(rest, "/")
		if size == "" || !tmdb.ValidImagePath("/"+file) {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "image/jpeg")
		_, _ = w.Write(PosterJPEG())
		return
	}
	if s.rateLimited(w) {
		return
	}
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	if r.URL.Query().Get("api_key") != Key {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write(fixture("unauthorized.json"))
		return
	}
	var name string
	switch p := strings.TrimPrefix(r.URL.Path, "/3"); {
	case p == "/search/movie":
		s.catalogue().search(w, r.URL.Query())
		return
	case strings.HasPrefix(p, "/find/"):
		id := strings.TrimPrefix(p, "/find/")
		name = "find_" + id + ".json"
		if fixture(name) == nil {
			results := []any{}
			if f, ok := s.catalogue().byIMDb[id]; ok && r.URL.Query().Get("external_source") == "imdb_id" {
				results = append(results, f.result())
			}
			writeJSON(w, map[string]any{"movie_results": results, "person_results": []any{}, "tv_results": []any{},
				"tv_episode_results": []any{}, "tv_season_results": []any{}})
			return
		}
	case strings.HasPrefix(p, "/movie/"):
		id := strings.TrimPrefix(p, "/movie/")
		name = "movie_" + id + ".json"
		if f, ok := s.catalogue().byID[id]; ok && fixture(name) == nil {
			writeJSON(w, f.details())
			return
		}
	case strings.HasPrefix(p, "/person/"):
		name = "person_" + strings.TrimPrefix(p, "/person/") + ".json"
	}
	body := fixture(name)
	if body == nil {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write(fixture("not_found.json"))
		return
	}
	_, _ = w.Write(body)
}

func (s *Server) catalogue() *catalogue {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.films
}

func fixture(name string) []byte {
	if name == "" || strings.ContainsAny(name, `/\`) {
		return nil
	}
	b, err := fixtures.ReadFile("testdata/" + name)
	if err != nil {
		return nil
	}
	return b
}

var (
	posterOnce sync.Once
	poster     []byte
)

// PosterJPEG is the image the fake serves: a 40×60 JPEG gradient, the same bytes every time.
func PosterJPEG() []byte {
	posterOnce.Do(func() {
		img := image.NewRGBA(image.Rect(0, 0, 40, 60))
		for y := range 60 {
			for x := range 40 {
				img.Set(x, y, color.RGBA{R: uint8(x * 6), G: uint8(y * 4), B: 128, A: 255})
			}
		}
		var b bytes.Buffer
		if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 80}); err != nil {
			panic(err)
		}
		poster = b.Bytes()
	})
	return poster
}
