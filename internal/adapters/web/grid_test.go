package web_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// TestPosterGridsAndTheListToggle: the diary, the watchlist, a user's diary and the search
// results are poster grids by default, with a placeholder for a film without poster; ?view=list
// is the list, one link away, and the choice stays in the toggle's, the pager's and the forms'
// links.
func TestPosterGridsAndTheListToggle(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	heat := strings.TrimPrefix(ann.logReview("Heat", "1995", 4, "The diner scene."), "/movie/")
	alien := strings.TrimPrefix(ann.logReview("Alien", "1979", 5, ""), "/movie/")
	b.Exec(`UPDATE movies SET poster_path = ? WHERE id = ?`, "posters/"+alien+".webp", alien)
	reindex(t, b)
	thumb := "/images/posters/" + alien + ".w185.webp"

	grid := mustStatus(t, ann.get("/diary?sort=rating_desc"), http.StatusOK)
	contains(t, grid, `<ul class="grid">`,
		// the poster: its thumbnails by width, sized, lazy, the title beside it
		`<a class="film-link" href="/movie/`+alien+`"><img class="cover" src="`+thumb+`" srcset="`+thumb+` 185w, /images/posters/`+
			alien+`.w342.webp 342w" sizes="(max-width: 480px) 45vw, 160px" alt="" width="185" height="278" loading="lazy" decoding="async"><span class="film-title">Alien</span>`,
		// the placeholder: the title on a neutral card, hidden from screen readers (the link names it)
		`<a class="film-link" href="/movie/`+heat+`"><span class="cover none" aria-hidden="true"><span>Heat</span></span><span class="film-title">Heat</span>`,
		`aria-label="4 out of 5"`, `/edit">Edit<span class="sr"> Heat</span>`,
		`<nav class="layouts" aria-label="Layout"><a href="/diary?sort=rating_desc" aria-current="page">Grid</a> <a href="/diary?sort=rating_desc&amp;view=list">List</a></nav>`)
	lacks(t, grid, "The diner scene.", `name="view"`)
	if strings.Index(grid.body, "Alien") > strings.Index(grid.body, "Heat</span></span>") {
		t.Error("the grid lost the sort")
	}

	list := mustStatus(t, ann.get("/diary?sort=rating_desc&view=list"), http.StatusOK)
	contains(t, list, `<article class="entry">`, "The diner scene.", `<input type="hidden" name="view" value="list">`,
		`<a href="/diary?sort=rating_desc">Grid</a> <a href="/diary?sort=rating_desc&amp;view=list" aria-current="page">List</a>`)
	lacks(t, list, `<ul class="grid">`)

	// Another's diary (a user's films) is a grid too, and keeps ?user= in its toggle.
	bob := b.register("bob")
	other := mustStatus(t, bob.get("/diary?user="+b.userID("ann").String()), http.StatusOK)
	contains(t, other, `<ul class="grid">`, `href="/diary?user=`+b.userID("ann").String()+`&amp;view=list"`)
	lacks(t, other, "/edit")

	// The pager keeps the layout.
	for i := range 21 {
		b.AddReview(b.userID("bob"), b.AddMovie("tmdb:"+strconv.Itoa(800000+i), "Film", 2000+i), 3, "2024-01-01T00:00:00Z", nil)
	}
	contains(t, mustStatus(t, bob.get("/diary?view=list"), http.StatusOK), `href="/diary?page=2&amp;view=list" rel="next"`)

	// The watchlist: a grid with its actions; the list keeps its layout after an add.
	mustStatus(t, ann.post("/watchlist/add", url.Values{"movie_id": {alien}}), http.StatusSeeOther)
	mustStatus(t, ann.post("/watchlist/add", url.Values{"title": {"Stalker"}, "year": {"1979"}}), http.StatusSeeOther)
	wl := mustStatus(t, ann.get("/watchlist"), http.StatusOK)
	contains(t, wl, `<ul class="grid">`, `<img class="cover" src="`+thumb+`"`, `<span class="cover none" aria-hidden="true"><span>Stalker</span></span>`,
		`Log it<span class="sr"> Stalker</span>`, `Remove<span class="sr"> Stalker</span>`, `href="/watchlist?view=list">List</a>`)
	checkForms(t, "watchlist grid", wl.body)
	wll := mustStatus(t, ann.get("/watchlist?view=list"), http.StatusOK)
	contains(t, wll, `<article class="entry">`, `<input type="hidden" name="back" value="/watchlist?view=list">`)
	p := mustStatus(t, ann.post("/watchlist/add", url.Values{"title": {"Heat"}, "year": {"1995"}, "back": {"/watchlist?view=list"}}), http.StatusSeeOther)
	if p.location() != "/watchlist?view=list&done=added" {
		t.Errorf("add from the list went to %s", p.location())
	}

	// The search results.
	sr := mustStatus(t, b.browser().get("/search?q=alien"), http.StatusOK)
	contains(t, sr, `<ul class="grid">`, `<img class="cover" src="`+thumb+`"`, `href="/search?q=alien&amp;view=list">List</a>`)
	srl := mustStatus(t, b.browser().get("/search?q=alien&view=list"), http.StatusOK)
	contains(t, srl, `<article class="entry">`, `<input type="hidden" name="view" value="list">`)
}

// TestMoviePageBackdropAndCastFaces: the movie page shows a backdrop only when the worker stored
// one, and its cast with their photos when stored, else their initials; the profile document's
// TMDb paths (what the API returns) are never shown. The person page shows the stored photo.
func TestMoviePageBackdropAndCastFaces(t *testing.T) {
	t.Parallel()
	b := setup(t)
	m := b.AddMovie("tmdb:78", "Blade Runner", 1982).String()
	page := mustStatus(t, b.browser().get("/movie/"+m), http.StatusOK)
	contains(t, page, `<span class="cover none big" role="img" aria-label="No poster"><span>Blade Runner</span></span>`)
	lacks(t, page, `class="backdrop"`, `<h2>Cast</h2>`)

	ford, young := "5b3c6c1e-7e0e-4f39-9d44-0a3f3c9b7a11", "5b3c6c1e-7e0e-4f39-9d44-0a3f3c9b7a12"
	b.Exec(`INSERT INTO people (id, external_id, name, profile_path, photo_key) VALUES
		(?, 'tmdb:3', 'Harrison Ford', '/tmdb-ford.jpg', 'people/ford.webp'), (?, 'tmdb:586', 'Sean Young', '/tmdb-only.jpg', NULL)`, ford, young)
	b.Exec(`INSERT INTO movie_credits (movie_id, person_id, kind, role, billing_order) VALUES
		(?, ?, 'cast', 'Rick Deckard', 0), (?, ?, 'cast', 'Rachael', 1)`, m, ford, m, young)
	b.Exec(`UPDATE movies SET backdrop_path = '/tmdb-backdrop.jpg' WHERE id = ?`, m)
	b.Exec(`INSERT INTO movie_profiles (movie_id, profile, enriched_at) VALUES (?, ?, '2024-01-01T00:00:00Z')`, m,
		`{"tmdb_id":78,"backdrop_path":"/tmdb-backdrop.jpg","cast":[{"person_id":"`+ford+`","name":"Harrison Ford","character":"Rick Deckard","profile_path":"/tmdb-ford.jpg"},`+
			`{"person_id":"`+young+`","name":"Sean Young","character":"Rachael","profile_path":"/tmdb-only.jpg"}],"crew":[]}`)
	page = mustStatus(t, b.browser().get("/movie/"+m), http.StatusOK)
	contains(t, page, `<h2>Cast</h2>`,
		`<a href="/person/`+ford+`"><img class="face" src="/images/people/ford.w185.webp" alt="" width="48" height="48" loading="lazy" decoding="async"><span class="name">Harrison Ford</span></a><span class="role">as Rick Deckard</span>`,
		`<a href="/person/`+young+`"><span class="face none" aria-hidden="true">SY</span><span class="name">Sean Young</span></a>`)
	lacks(t, page, `class="backdrop"`, "tmdb-")

	b.Exec(`UPDATE movies SET backdrop_key = 'backdrops/br.webp' WHERE id = ?`, m)
	contains(t, mustStatus(t, b.browser().get("/movie/"+m), http.StatusOK),
		`<img class="backdrop" src="/images/backdrops/br.w780.webp" alt="" width="780" height="439" decoding="async">`)

	person := mustStatus(t, b.browser().get("/person/"+ford), http.StatusOK)
	contains(t, person, `<img class="poster big" src="/images/people/ford.w185.webp" alt="Photo of Harrison Ford"`)
	lacks(t, person, "tmdb-ford")
	lacks(t, mustStatus(t, b.browser().get("/person/"+young), http.StatusOK), `class="poster big"`, "tmdb-only")
}
