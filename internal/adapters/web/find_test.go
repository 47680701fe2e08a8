package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"moviesdiary/internal/domain"
)

// TestLogSearchListsLocalFilmsThenTMDb: the log form's search lists this instance's films first,
// then TMDb's with their posters (w185, w342 by width) and years; a TMDb film stored here is
// listed once, as the local movie; each result is a form posting the pick with CSRF.
func TestLogSearchListsLocalFilmsThenTMDb(t *testing.T) {
	t.Parallel()
	b := setup(t, options{tmdb: true})
	ann := b.register("ann")
	// Logged by title, Solaris (1972) resolved to TMDb's 593: it is this instance's now.
	ann.logReview("Solaris", "1972", 5, "")
	arrival := b.AddMovie("tmdb:329865", "Arrival", 2016)
	reindex(t, b)

	p := mustStatus(t, ann.get("/log/search?title=solaris"), http.StatusOK)
	cdn := b.TMDb.ImageURL()
	local := domain.MovieIDFor("tmdb:593").String()
	contains(t, p, `<h2 id="local-h">On this instance</h2>`, `name="movie" value="`+local+`"`, `href="/movie/`+local+`"`,
		`<h2 id="remote-h">From TMDb</h2>`, `name="movie" value="tmdb:2103"`, `<span class="year">1972</span>`,
		`<span class="year">2002</span>`,
		`src="`+cdn+`/w185/xZrF3RRPBQvGmtwMlb2DkzBTmBS.jpg" srcset="`+cdn+`/w185/xZrF3RRPBQvGmtwMlb2DkzBTmBS.jpg 185w, `+
			cdn+`/w342/xZrF3RRPBQvGmtwMlb2DkzBTmBS.jpg 342w"`, `width="185" height="278" loading="lazy"`,
		`name="title" value="Solaris"`, `name="year" value="2002"`,
		`name="poster" value="/xZrF3RRPBQvGmtwMlb2DkzBTmBS.jpg"`, `<span class="sr"> Solaris (2002)</span>`,
		`href="/log?title=solaris"`)
	// The stored film is listed once, as the local movie.
	lacks(t, p, `value="tmdb:593"`)
	if n := strings.Count(p.body, `name="movie" value="`+local+`"`); n != 1 {
		t.Errorf("Solaris (1972) listed %d times", n)
	}
	if i, j := strings.Index(p.body, `id="local-h"`), strings.Index(p.body, `id="remote-h"`); i < 0 || j < i {
		t.Error("the local films are not listed first")
	}
	// The fake's CDN is plain http: the page's policy lets its images in.
	if csp := p.header.Get("Content-Security-Policy"); !strings.Contains(csp, "img-src 'self' https: http://"+strings.TrimPrefix(b.TMDb.URL, "http://")) {
		t.Errorf("CSP %q does not allow the CDN", csp)
	}
	checkForms(t, "log search", p.body)

	// A TMDb film stored here is the local movie, listed once.
	p = mustStatus(t, ann.get("/log/search?title=Arrival&year=2016"), http.StatusOK)
	contains(t, p, `name="movie" value="`+arrival.String()+`"`)
	lacks(t, p, `value="tmdb:329865"`)
	if n := strings.Count(p.body, `name="movie" value="`+arrival.String()+`"`); n != 1 {
		t.Errorf("Arrival listed %d times", n)
	}
	// The year narrows TMDb's search.
	p = mustStatus(t, ann.get("/log/search?title=solaris&year=2002"), http.StatusOK)
	contains(t, p, `value="tmdb:2103"`)
	lacks(t, p, `value="tmdb:593"`)

	// Bad input: the form again with the reason, never a search.
	before := b.TMDb.Count("/3/search/movie")
	contains(t, mustStatus(t, ann.get("/log/search?title=solaris&year=abc"), http.StatusOK), `role="alert"`, "The year must be a number")
	contains(t, mustStatus(t, ann.get("/log/search?title=+"), http.StatusOK), `role="alert"`, "Type a title")
	if n := b.TMDb.Count("/3/search/movie"); n != before {
		t.Errorf("%d searches for bad input", n-before)
	}
	// Members only.
	if p := b.browser().get("/log/search?title=x"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.location(), "/login") {
		t.Errorf("visitor: %d %s", p.status, p.location())
	}
}

// TestPickATMDbFilmAndLogIt: picking a TMDb film lands on the log form filled in with it (title,
// year, poster), and logging it stores the film under its TMDb id; a local pick names the
// movie; bad picks and forged ones are refused.
func TestPickATMDbFilmAndLogIt(t *testing.T) {
	t.Parallel()
	b := setup(t, options{tmdb: true})
	ann := b.register("ann")

	pick := url.Values{"movie": {"tmdb:329865"}, "title": {"Arrival"}, "year": {"2016"}, "poster": {"/x2FJsf1ElAgr63Y3PNPtJrcmpoe.jpg"}}
	p := mustStatus(t, ann.post("/log/pick", pick), http.StatusSeeOther)
	form := mustStatus(t, ann.get(p.location()), http.StatusOK)
	contains(t, form, `name="movie_id" value="tmdb:329865"`, `name="title" value="Arrival"`, `name="year" value="2016"`,
		`<strong>Arrival</strong> (2016)`, `src="`+b.TMDb.ImageURL()+`/w185/x2FJsf1ElAgr63Y3PNPtJrcmpoe.jpg"`,
		`alt="Poster of Arrival"`, `href="/log/search?title=Arrival&amp;year=2016"`)
	checkForms(t, "log picked", form.body)

	// A refused log keeps the pick.
	bad := ann.post("/log", url.Values{"movie_id": {"tmdb:329865"}, "title": {"Arrival"}, "year": {"2016"},
		"poster": {"/x2FJsf1ElAgr63Y3PNPtJrcmpoe.jpg"}, "watched_at": {"2024-01-01"}})
	mustStatus(t, bad, http.StatusBadRequest)
	contains(t, bad, `role="alert"`, `name="movie_id" value="tmdb:329865"`, `<strong>Arrival</strong> (2016)`)

	logged := mustStatus(t, ann.post("/log", url.Values{"movie_id": {"tmdb:329865"}, "title": {"Arrival"}, "year": {"2016"},
		"rating": {"5"}, "watched_at": {"2024-01-01"}}), http.StatusSeeOther)
	id := domain.MovieIDFor("tmdb:329865").String()
	if want := "/movie/" + id + "?done=logged"; logged.location() != want {
		t.Errorf("logged to %s, want %s", logged.location(), want)
	}
	if ext := b.String(`SELECT external_metadata_id FROM movies WHERE id = ?`, id); ext != "tmdb:329865" {
		t.Errorf("external id %q", ext)
	}

	// Picking a stored movie goes to the form with it.
	p = mustStatus(t, ann.post("/log/pick", url.Values{"movie": {id}}), http.StatusSeeOther)
	if p.location() != "/log?movie="+id {
		t.Errorf("local pick to %s", p.location())
	}
	contains(t, mustStatus(t, ann.get(p.location()), http.StatusOK), `name="movie_id" value="`+id+`"`)

	// Bad and forged picks.
	for _, f := range []url.Values{{"movie": {"garbage"}}, {"movie": {"tt0083658"}, "title": {"Blade Runner"}},
		{"movie": {"tmdb:78"}}, {"movie": {"tmdb:78"}, "title": {"Blade Runner"}, "year": {"soon"}}} {
		contains(t, mustStatus(t, ann.post("/log/pick", f), http.StatusBadRequest), "<!doctype html>")
	}
	// A poster path that is not one is dropped.
	p = mustStatus(t, ann.post("/log/pick", url.Values{"movie": {"tmdb:78"}, "title": {"Blade Runner"}, "poster": {"//evil.example/x.jpg"}}),
		http.StatusSeeOther)
	if strings.Contains(p.location(), "evil") {
		t.Errorf("pick kept the poster: %s", p.location())
	}
	mustStatus(t, ann.post("/log/pick", url.Values{"movie": {id}, "csrf": {"forged"}}), http.StatusForbidden)
}

// TestLogSearchWithoutTMDb: with TMDb down the results list the local films with a note, never
// an error page; with no key there is no TMDb section at all.
func TestLogSearchWithoutTMDb(t *testing.T) {
	t.Parallel()
	t.Run("outage", func(t *testing.T) {
		t.Parallel()
		b := setup(t, options{tmdb: true})
		ann := b.register("ann")
		ann.logReview("Heat", "1995", 4, "")
		reindex(t, b)
		b.TMDb.SetOverride(func(w http.ResponseWriter, r *http.Request) bool {
			http.Error(w, `{"status_code":11,"status_message":"Internal error."}`, http.StatusInternalServerError)
			return true
		})
		p := mustStatus(t, ann.get("/log/search?title=heat"), http.StatusOK)
		contains(t, p, `class="note" role="status"`, "TMDb did not answer", `<span class="film-title">Heat</span>`,
			`href="/log?title=heat"`)
		lacks(t, p, `role="alert"`, `value="tmdb:`)
	})
	t.Run("no key", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		ann := b.register("ann")
		ann.logReview("Heat", "1995", 4, "")
		reindex(t, b)
		p := mustStatus(t, ann.get("/log/search?title=heat&year=1995"), http.StatusOK)
		contains(t, p, `<span class="film-title">Heat</span>`, `href="/log?title=heat&amp;year=1995"`)
		lacks(t, p, "From TMDb", "TMDb did not answer")
		// "Not listed": the form with the title and year typed.
		form := mustStatus(t, ann.get("/log?title=heat&year=1995"), http.StatusOK)
		contains(t, form, `id="title" name="title" value="heat"`, `id="year" name="year" type="number" min="1888" max="2100" inputmode="numeric" value="1995"`)
		if n := b.TMDb.Total(); n != 0 {
			t.Errorf("%d requests to TMDb without a key", n)
		}
	})
}
