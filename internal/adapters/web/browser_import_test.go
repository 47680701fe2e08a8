package web_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"moviesdiary/internal/adapters/imaging"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/image"
	"moviesdiary/internal/usecase/movie"
	"moviesdiary/internal/usecase/poster"
)

// diaryFilm is one row of the Letterboxd diary the import test uploads.
type diaryFilm struct {
	name string
	year int
	// ext is the TMDb film the row must end as; "" for a row that must stay a manual movie.
	ext string
}

// letterboxdFilms are 30 diary rows as Letterboxd names them: 28 films the fake TMDb knows
// (namesakes of other years among them: Solaris, The Thing, Dune, Little Women, Crash; foreign
// films under their English title; Alien beside Aliens), one TMDb holds twice under the same
// title and year (ambiguous without a director, which a Letterboxd diary never carries) and one
// TMDb does not know.
var letterboxdFilms = []diaryFilm{
	{"Arrival", 2016, "tmdb:329865"}, {"Blade Runner", 1982, "tmdb:78"}, {"Solaris", 1972, "tmdb:593"},
	{"The Thing", 1982, "tmdb:1091"}, {"Amélie", 2001, "tmdb:194"}, {"Heat", 1995, "tmdb:949"},
	{"The Godfather", 1972, "tmdb:238"}, {"Pulp Fiction", 1994, "tmdb:680"}, {"Fight Club", 1999, "tmdb:550"},
	{"The Matrix", 1999, "tmdb:603"}, {"Inception", 2010, "tmdb:27205"}, {"Interstellar", 2014, "tmdb:157336"},
	{"Parasite", 2019, "tmdb:496243"}, {"Spirited Away", 2001, "tmdb:129"}, {"Alien", 1979, "tmdb:348"},
	{"2001: A Space Odyssey", 1968, "tmdb:62"}, {"Mad Max: Fury Road", 2015, "tmdb:76341"},
	{"Whiplash", 2014, "tmdb:244786"}, {"Moonlight", 2016, "tmdb:376867"}, {"Get Out", 2017, "tmdb:419430"},
	{"Dune", 2021, "tmdb:438631"}, {"Portrait of a Lady on Fire", 2019, "tmdb:531428"},
	{"Seven Samurai", 1954, "tmdb:346"}, {"The Shining", 1980, "tmdb:694"}, {"Oldboy", 2003, "tmdb:670"},
	{"Mulholland Drive", 2001, "tmdb:1018"}, {"Little Women", 2019, "tmdb:331482"}, {"Crash", 1996, "tmdb:884"},
	{"Twin Film", 2000, ""}, {"Home Movies from the Lake House", 2018, ""},
}

// letterboxdDiaryCSV is the rows as Letterboxd's diary.csv: its columns, half-star ratings, a
// rewatch flag and tags, newest first.
func letterboxdDiaryCSV(films []diaryFilm) string {
	var b strings.Builder
	b.WriteString("Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date\n")
	for i, f := range films {
		watched := fmt.Sprintf("2024-%02d-%02d", 12-i/28, 28-i%28)
		name := f.name
		if strings.ContainsAny(name, ",\"") {
			name = `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
		}
		rewatch, tags := "", ""
		if i%7 == 3 {
			rewatch, tags = "Yes", `"cinema, 35mm"`
		}
		fmt.Fprintf(&b, "%s,%s,%d,https://boxd.it/%x,%.1f,%s,%s,%s\n", watched, name, f.year, 0x2b00+i,
			float64(1+i%10)/2, rewatch, tags, watched)
	}
	return b.String()
}

// TestBrowserImportsALetterboxdDiaryOntoTMDb is issue 32's acceptance in headless Chromium with
// JavaScript off and the fake TMDb configured: a Letterboxd diary of 30 rows uploaded through the
// import pages ends, once the worker's handlers ran, with 28 movies resolved to TMDb and
// postered, the ambiguous and the unknown film left manual, and no film twice. TMDb rate-limits
// the import's first search (429 with Retry-After), so Arrival is stored as a manual movie within
// the request's budget and resolved by the worker. Then a Plex scrobble of Arrival (Plex's
// multipart payload, Guid tmdb://329865) logged from the watch queue lands on that same movie.
func TestBrowserImportsALetterboxdDiaryOntoTMDb(t *testing.T) {
	chromiumPath(t)
	b := setup(t, options{tmdb: true})
	dir := os.Getenv("WEB_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	var limited atomic.Int32
	b.TMDb.SetOverride(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/3/search/movie" || r.URL.Query().Get("query") != "Arrival" || limited.Add(1) > 1 {
			return false
		}
		w.Header().Set("Retry-After", "3")
		w.Header().Set("Content-Type", "application/json;charset=utf-8")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"success":false,"status_code":25,"status_message":"Your request count (#) is over the allowed limit of (40)."}`))
		return true
	})

	ann := person(t, newBrowser(t), b.srv.URL, dir)
	ann.open("/register")
	ann.fill("#email", "ann@example.com", "#username", "ann", "#password", "correct horse", "#password2", "correct horse")
	ann.submit("form.card button[type=submit]", "Account created")

	file := filepath.Join(t.TempDir(), "diary.csv")
	if err := os.WriteFile(file, []byte(letterboxdDiaryCSV(letterboxdFilms)), 0o644); err != nil {
		t.Fatal(err)
	}
	ann.open("/settings")
	ann.do(chromedp.SetUploadFiles(chromedp.CSS("#import-file"), []string{file}))
	ann.do(chromedp.Click(chromedp.CSS(`form[action="/settings/import"] button[type=submit]`)))
	ann.waitText("main", "recognised as a known export")
	ann.waitText("main", "30 ready, 0 duplicates, 0 invalid")
	ann.shot("import-preview", 1100)
	ann.submit(`form[action$="/confirm"] button[type=submit]`, "Import done")
	ann.waitText("main", "Imported 30, skipped 0 duplicates, 0 failed")
	if limited.Load() == 0 {
		t.Fatal("the fake never rate-limited the import's search for Arrival")
	}
	arrival := b.String(`SELECT id FROM movies WHERE title = 'Arrival'`)
	if ext := b.String(`SELECT external_metadata_id FROM movies WHERE id = ?`, arrival); ext != "" {
		t.Fatalf("Arrival resolved within the request (%s) although TMDb answered 429", ext)
	}

	runCatalogueWorker(t, b)

	resolved := b.Int(`SELECT count(*) FROM movies WHERE external_metadata_id IS NOT NULL`)
	postered := b.Int(`SELECT count(*) FROM movies WHERE external_metadata_id IS NOT NULL AND poster_path IS NOT NULL`)
	total := b.Int(`SELECT count(*) FROM movies`)
	t.Logf("%d movies: %d resolved, %d postered; %d TMDb requests", total, resolved, postered, b.TMDb.Total())
	if total != len(letterboxdFilms) || resolved < 28 || postered < 28 {
		t.Errorf("%d movies, %d resolved, %d postered; want %d, at least 28, at least 28", total, resolved, postered, len(letterboxdFilms))
	}
	for _, f := range letterboxdFilms {
		got := b.String(`SELECT coalesce(external_metadata_id, '') FROM movies WHERE title = ? AND release_year = ?`, f.name, f.year)
		if got != f.ext {
			t.Errorf("%s (%d) is %q, want %q", f.name, f.year, got, f.ext)
		}
	}
	if n := b.Int(`SELECT count(*) FROM (SELECT 1 FROM movies GROUP BY lower(title), release_year HAVING count(*) > 1)`); n != 0 {
		t.Errorf("%d films stored twice", n)
	}
	if n := b.Int(`SELECT count(*) FROM reviews`); n != len(letterboxdFilms) {
		t.Errorf("%d reviews, want %d", n, len(letterboxdFilms))
	}
	if b.String(`SELECT external_metadata_id FROM movies WHERE id = ?`, arrival) != "tmdb:329865" {
		t.Fatalf("the worker did not resolve the manual Arrival %s in place", arrival)
	}

	// The diary's grid shows the posters: Arrival's thumbnail, loaded.
	ann.open("/diary")
	img := `.grid a[href="/movie/` + arrival + `"] img.cover`
	if got, want := ann.attr(img, "src"), "/images/"+domain.ThumbKey(b.String(`SELECT poster_path FROM movies WHERE id = ?`, arrival), 185); got != want {
		t.Errorf("diary poster %q, want %q", got, want)
	}
	ann.waitLoaded(img)
	ann.shot("import-diary-grid", 1100)

	// Plex scrobbles Arrival; ann logs it from her watch queue: the same movie, now seen twice.
	ann.open("/settings")
	ann.fill("#provider", "plex")
	ann.do(chromedp.Click(chromedp.CSS(`form[action="/settings/webhooks"] button[type=submit]`)))
	ann.waitText(".notice", "plex token is shown only this once")
	plexScrobble(t, b, ann.attr("#new-token", "value"), "Arrival", 2016, "tmdb://329865", "imdb://tt2543164")
	ann.open("/settings")
	ann.waitText("#queue", "Arrival (2016)")
	ann.fill(`#queue select[name=rating]`, "5")
	ann.submit(`#queue form[action$="/confirm"] button[type=submit]`, "Watch logged as a review.")
	if n := b.Int(`SELECT count(*) FROM movies`); n != total {
		t.Errorf("%d movies after the scrobble, want %d", n, total)
	}
	if n := b.Int(`SELECT count(*) FROM reviews WHERE movie_id = ?`, arrival); n != 2 {
		t.Errorf("Arrival has %d reviews, want the import's and Plex's", n)
	}
	ann.open("/movie/" + arrival)
	ann.waitText("h1", "Arrival")
	ann.shot("import-arrival", 1100)
}

// plexScrobble posts Plex's media.scrobble of a film to the webhook as Plex does: multipart
// with the JSON in a "payload" part, the token in the query, the ids in Metadata.Guid.
func plexScrobble(t *testing.T, b *bundle, token, title string, year int, guids ...string) {
	t.Helper()
	ids := make([]string, len(guids))
	for i, g := range guids {
		ids[i] = fmt.Sprintf(`{"id": %q}`, g)
	}
	payload := fmt.Sprintf(`{"event": "media.scrobble", "user": true, "owner": true,
		"Account": {"id": 1, "title": "ann"}, "Server": {"title": "Office", "uuid": "54664a3d8acc39983675640ec9ce00b70af9cc36"},
		"Player": {"local": true, "title": "Plex Web (Chrome)", "uuid": "r6yfkdnfggbh2bdnvkffwbms"},
		"Metadata": {"librarySectionType": "movie", "ratingKey": "2041", "key": "/library/metadata/2041",
			"guid": "plex://movie/5d776b59ad5437001f79c6f8", "type": "movie", "title": %q, "year": %d,
			"Guid": [%s]}}`, title, year, strings.Join(ids, ", "))
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="payload"`)
	h.Set("Content-Type", "application/json")
	pw, err := mw.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = pw.Write([]byte(payload))
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(b.srv.URL+"/api/v1/webhooks/plex?token="+token, mw.FormDataContentType(), &buf)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("plex webhook: %d", resp.StatusCode)
	}
}

// runCatalogueWorker runs the worker's catalogue handlers over the outbox until they leave no
// event of theirs unhandled: resolution (MovieResolutionRequested), the poster sync
// (MovieDiscovered) and the thumbnails (ImageStored), with a client of the fake TMDb of its own,
// as the worker has.
func runCatalogueWorker(t *testing.T, b *bundle) {
	t.Helper()
	client := b.TMDb.Client()
	runWorker(t, b, map[string]func(context.Context, domain.Event) error{
		domain.MovieResolutionRequested{}.EventType(): movie.NewResolution(b.Store, client, nil, b.Log).Handle,
		domain.MovieDiscovered{}.EventType():          poster.New(b.Store, b.Images, client, b.Log).Handle,
		domain.ImageStored{}.EventType():              image.NewThumbnails(b.Images, imaging.WebP{}.Thumbnails, b.Log).Handle,
	})
}

// runWorker runs handlers, one per event type, over the outbox until they leave no event of
// theirs unhandled. Each event is handled once, in outbox order; a handler's failure fails the
// test.
func runWorker(t *testing.T, b *bundle, handlers map[string]func(context.Context, domain.Event) error) {
	t.Helper()
	var types []any
	for typ := range handlers {
		types = append(types, typ)
	}
	in := strings.TrimSuffix(strings.Repeat("?, ", len(types)), ", ")
	done := map[int64]bool{}
	for {
		rows, err := b.DB.Query(`SELECT id, event_type, payload FROM event_queue WHERE event_type IN (`+in+`) ORDER BY id`, types...)
		if err != nil {
			t.Fatal(err)
		}
		type row struct {
			id      int64
			typ     string
			payload []byte
		}
		var todo []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.id, &r.typ, &r.payload); err != nil {
				t.Fatal(err)
			}
			if !done[r.id] {
				todo = append(todo, r)
			}
		}
		if err := rows.Err(); err != nil && err != sql.ErrNoRows {
			t.Fatal(err)
		}
		rows.Close()
		if len(todo) == 0 {
			return
		}
		for _, r := range todo {
			e, err := domain.Decode(r.typ, r.payload)
			if err != nil {
				t.Fatal(err)
			}
			if err := handlers[r.typ](ctx, e); err != nil {
				t.Fatalf("%s %d: %v", r.typ, r.id, err)
			}
			done[r.id] = true
		}
	}
}
