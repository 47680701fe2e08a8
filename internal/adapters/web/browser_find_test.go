package web_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"moviesdiary/internal/adapters/imaging"
	"moviesdiary/internal/adapters/tmdb"
	"moviesdiary/internal/adapters/tmdb/tmdbtest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/enrichment"
	"moviesdiary/internal/usecase/image"
	"moviesdiary/internal/usecase/poster"
)

// TestBrowserLogsAFilmFoundOnTMDb is the log form's search in headless Chromium with JavaScript
// off, TMDb (the fake) configured: search "Arrival", pick TMDb's film by its poster, log it;
// once the worker's handlers ran (poster sync, enrichment, movie images, thumbnails), the
// diary's grid shows the poster and the movie page the backdrop and the cast's faces.
func TestBrowserLogsAFilmFoundOnTMDb(t *testing.T) {
	chromiumPath(t)
	b := setup(t, options{tmdb: true})
	// Arrival as TMDb has it: a backdrop, and billed actors with photos but one.
	films := slices.Clone(tmdbtest.Films)
	for i, f := range films {
		if f.ID == 329865 {
			films[i].BackdropPath = "/yIZ1xendyqKvY3FGeeUYUd5X9Mm.jpg"
			films[i].Cast = []tmdbtest.Actor{
				{ID: 9273, Name: "Amy Adams", Character: "Louise Banks", ProfilePath: "/oGF4F4bgGVDFtdkEUdMGGmNSzRv.jpg"},
				{ID: 17604, Name: "Jeremy Renner", Character: "Ian Donnelly", ProfilePath: "/yB84D1neTYXfWBaV0QOE9RF2VCu.jpg"},
				{ID: 2178, Name: "Forest Whitaker", Character: "Colonel Weber"},
			}
		}
	}
	b.TMDb.SetFilms(films)
	dir := os.Getenv("WEB_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	ann := person(t, newBrowser(t), b.srv.URL, dir)
	ann.open("/register")
	ann.fill("#email", "ann@example.com", "#username", "ann", "#password", "correct horse", "#password2", "correct horse")
	ann.submit("form.card button[type=submit]", "Account created")

	ann.open("/log")
	ann.fill("#find-title", "Arrival")
	ann.do(chromedp.Click(chromedp.CSS(`form.find button[type=submit]`)))
	ann.waitText("h1", "Find the movie")
	ann.waitText("#remote-h", "From TMDb")
	// TMDb's Arrival is listed with its poster, loaded from the CDN.
	card := `li.film:has(input[name=movie][value="tmdb:329865"])`
	ann.waitText(card+" .year", "2016")
	src := ann.attr(card+" img.cover", "src")
	if want := b.TMDb.ImageURL() + "/w185/x2FJsf1ElAgr63Y3PNPtJrcmpoe.jpg"; src != want {
		t.Errorf("result poster %q, want %q", src, want)
	}
	ann.waitLoaded(card + " img.cover")
	ann.shot("log-search", 1100)
	ann.shot("log-search-360", 360)

	ann.do(chromedp.Click(chromedp.CSS(card + " button[type=submit]")))
	ann.waitText("form.card .picked", "Arrival")
	ann.waitText("form.card .picked", "(2016)")
	ann.waitLoaded("form.card .picked img")
	ann.do(chromedp.Click(chromedp.CSS(`input[name=rating][value="5"]`)))
	ann.submit("form.card button[type=submit]", "Review logged.")
	ann.waitText("h1", "Arrival")

	id := domain.MovieIDFor("tmdb:329865")
	if n := b.Int(`SELECT count(*) FROM movies WHERE external_metadata_id = 'tmdb:329865'`); n != 1 {
		t.Fatalf("%d movies of Arrival", n)
	}
	if n := b.Events(domain.MovieDiscovered{}.EventType()); n != 1 {
		t.Fatalf("%d MovieDiscovered events", n)
	}
	// The worker's handlers, as they run on the movie's events: the poster sync on
	// MovieDiscovered, the enrichment on MovieEnrichmentRequested, the movie images on the
	// MovieImagesRequested it commits, the thumbnails on every ImageStored.
	client := b.TMDb.Client()
	runWorker(t, b, map[string]func(context.Context, domain.Event) error{
		domain.MovieDiscovered{}.EventType():          poster.New(b.Store, b.Images, client, b.Log).Handle,
		domain.MovieEnrichmentRequested{}.EventType(): enrichment.NewMovies(b.Store, tmdb.Enrichment{C: client}, nil, b.Log).Handle,
		domain.MovieImagesRequested{}.EventType():     poster.NewImages(b.Store, b.Images, client, b.Log).Handle,
		domain.ImageStored{}.EventType():              image.NewThumbnails(b.Images, imaging.WebP{}.Thumbnails, b.Log).Handle,
	})

	ann.open("/diary")
	img := `.grid a[href="/movie/` + id.String() + `"] img.cover`
	if got, want := ann.attr(img, "src"), "/images/"+domain.ThumbKey(domain.PosterKey(id), 185); got != want {
		t.Errorf("diary poster %q, want %q", got, want)
	}
	ann.waitLoaded(img)
	ann.shot("diary-grid", 1100)
	ann.shot("diary-grid-360", 360)

	// The movie page: the stored backdrop's w780 thumbnail, and the faces of the two actors
	// TMDb has photos of, the third one's initials.
	ann.open("/movie/" + id.String())
	ann.waitText("h1", "Arrival")
	if got, want := ann.attr("img.backdrop", "src"), "/images/"+domain.ThumbKey(domain.BackdropKey(id), 780); got != want {
		t.Errorf("backdrop %q, want %q", got, want)
	}
	ann.waitLoaded("img.backdrop")
	amy := `ul.cast a[href="/person/` + enrichment.PersonID(9273).String() + `"] img.face`
	if got, want := ann.attr(amy, "src"), "/images/"+domain.ThumbKey(domain.PersonPhotoKey(enrichment.PersonID(9273)), 185); got != want {
		t.Errorf("Amy Adams's face %q, want %q", got, want)
	}
	ann.waitLoaded(amy)
	ann.waitLoaded(`ul.cast a[href="/person/` + enrichment.PersonID(17604).String() + `"] img.face`)
	ann.waitText(`ul.cast a[href="/person/`+enrichment.PersonID(2178).String()+`"] .face.none`, "FW")
	ann.shot("movie-page", 1100)
	ann.shot("movie-page-360", 360)

	// The person page shows the stored photo.
	ann.open("/person/" + enrichment.PersonID(9273).String())
	ann.waitText("h1", "Amy Adams")
	ann.waitLoaded("img.poster.big")
}

// attr is an attribute of the element sel.
func (tb *tab) attr(sel, name string) string {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	a, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(sel), name))
	if err != nil || !a.Exists {
		tb.t.Fatalf("%s has no %s (%v)\n%s", sel, name, err, tb.where())
	}
	return a.Value
}

// waitLoaded waits for the image sel to have loaded: a broken or blocked image (a policy that
// refuses its origin, a 404) never gets a natural width. The page runs no script; the check is
// the browser's own DevTools evaluation.
func (tb *tab) waitLoaded(sel string) {
	tb.t.Helper()
	js := `(() => { const i = document.querySelector(` + jsString(sel) + `); return !!i && i.complete && i.naturalWidth > 0 })()`
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(tb.ctx, 2*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.EvaluateAsDevTools[bool](js))
		cancel()
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			tb.t.Fatalf("image %s never loaded (%v)\n%s", sel, err, tb.where())
		}
		tb.do(chromedp.WaitReady(chromedp.CSS("body")))
	}
}

func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
