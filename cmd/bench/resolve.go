package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/storage"
	"moviesdiary/internal/adapters/tabular"
	"moviesdiary/internal/adapters/tmdb"
	"moviesdiary/internal/adapters/tmdb/tmdbtest"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
	"moviesdiary/internal/usecase/enrichment"
	"moviesdiary/internal/usecase/importer"
	"moviesdiary/internal/usecase/movie"
	"moviesdiary/internal/usecase/poster"
)

// The resolve scenario's shape (-resolve-rows, -resolve-films, -tmdb-rate change the first three).
const (
	// resolveRowsDefault is the Letterboxd diary's rows, resolveFilmsDefault the distinct films
	// among them (the rest are rewatches, the often-watched more often).
	resolveRowsDefault  = 5000
	resolveFilmsDefault = 3500
	// tmdbRateDefault is the rate the fake TMDb allows (TMDb: about 50 requests a second per
	// address), with tmdbBurst at once; beyond it, 429 with Retry-After.
	tmdbRateDefault = 50
	tmdbBurst       = 20
	// Of the distinct films, one in resolveMissingEvery is not on TMDb and one in
	// resolveTwinEvery has a namesake of the same year there (ambiguous without a director,
	// which a Letterboxd diary never names): both stay manual. One in resolveRemakeEvery has a
	// namesake of another year, which the year tells apart.
	resolveMissingEvery = 50
	resolveTwinEvery    = 60
	resolveRemakeEvery  = 8
	// resolveExtraFilms are films on TMDb nobody logged, so a search meets strangers.
	resolveExtraFilms = 3000
)

// resolveScenario imports a Letterboxd diary through the importer (the server's resolver, its
// 1 s budget per row and its title-search cache, its TMDb client paced at tmdb.RateDefault)
// against the fake TMDb at TMDb's rate limit, while a worker pipeline on the same database runs
// the handlers the worker runs for new movies (resolution of manual movies, movie enrichment,
// the poster sync), with a TMDb client of its own as a second process has: TMDb's limit is per
// address, and the two together may exceed it. It reports the import's wall time, how much was
// resolved when it returned and once the worker caught up, and the TMDb requests per row.
func resolveScenario(ctx context.Context, dir string, o options, log *slog.Logger) ([]row, error) {
	films, catalogue, diary := resolveDiary(o.resolveRows, o.resolveFilms)
	fake := tmdbtest.Start()
	defer fake.Close()
	fake.SetFilms(catalogue)
	fake.SetRateLimit(o.tmdbRate, tmdbBurst)

	path := filepath.Join(dir, "resolve.db")
	prod, err := sqlite.OpenMigrated(ctx, path, log)
	if err != nil {
		return nil, err
	}
	worker, err := sqlite.Open(ctx, path)
	if err != nil {
		prod.Close()
		return nil, err
	}
	images, err := storage.OpenLocal(filepath.Join(dir, "resolve-images"))
	if err != nil {
		worker.Close()
		prod.Close()
		return nil, err
	}
	defer images.Close()
	var server, work tmdbCounts
	client := func(c *tmdbCounts) *tmdb.Client {
		return tmdb.NewClient(tmdb.Config{APIURL: fake.APIURL(), ImageURL: fake.ImageURL(), APIKey: tmdbtest.Key,
			HTTP: &http.Client{Transport: c.wrap(http.DefaultTransport)}})
	}
	// The worker's media handlers for new movies, as cmd/worker registers them (one client).
	wc := client(&work)
	src := tmdb.Enrichment{C: wc}
	hs := []delivery.Handler{
		benchHandler(poster.Name, poster.Types, poster.New(worker, images, wc, log).Handle),
		benchHandler(enrichment.MovieName, enrichment.MovieTypes, enrichment.NewMovies(worker, src, nil, log).Handle),
		benchHandler(movie.ResolutionName, movie.ResolutionTypes,
			movie.NewResolution(worker, movie.NewSearchCache(wc, movie.SearchCacheConfig{}), nil, log).Handle),
	}
	q := worker.Queue(outbox.QueueConfig{Logger: log})
	p, err := newStorePipeline(prod, q, worker.Ledger(), o, log, hs, q.Close, worker.Close, prod.Close)
	if err != nil {
		return nil, err
	}
	stop := sync.OnceFunc(p.close)
	defer stop()
	p.start(ctx)

	// The server's import, as app.NewAPI wires it.
	resolver := movie.NewResolver(prod, movie.NewSearchCache(client(&server), movie.SearchCacheConfig{}), log)
	imports := importer.NewService(prod, func(r io.Reader, format string) (importer.File, error) { return tabular.Open(r, format) },
		resolver, log)
	u, err := prod.CreateUser(ctx, domain.User{ID: uuid.New(), Username: "letterboxd", Email: "letterboxd@example.test",
		PasswordHash: "x", Role: domain.RoleStandard, CreatedAt: time.Now().UTC()})
	if err != nil {
		return nil, err
	}
	created, err := imports.Create(ctx, importer.Upload{UserID: u.ID, Format: "csv", Filename: "diary.csv",
		Body: strings.NewReader(diary)})
	if err != nil {
		return nil, err
	}
	var valid []int
	if err := imports.Preview(ctx, u.ID, created.Session.ID, func(pr importer.PreviewRow) error {
		if pr.Status == importer.StatusValid {
			valid = append(valid, pr.Index)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if len(valid) != o.resolveRows {
		return nil, fmt.Errorf("%d of %d rows valid in the preview", len(valid), o.resolveRows)
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	resolved := func() (rows, movies int, err error) {
		err = db.QueryRowContext(ctx, `SELECT
			(SELECT count(*) FROM reviews r JOIN movies m ON m.id = r.movie_id WHERE m.external_metadata_id IS NOT NULL),
			(SELECT count(*) FROM movies WHERE external_metadata_id IS NOT NULL)`).Scan(&rows, &movies)
		return rows, movies, err
	}

	start := time.Now()
	res, err := imports.Confirm(ctx, u.ID, created.Session.ID, valid, false)
	if err != nil {
		return nil, err
	}
	importWall := time.Since(start)
	if res.Imported != o.resolveRows {
		return nil, fmt.Errorf("imported %d of %d rows (%d failed)", res.Imported, o.resolveRows, len(res.Failed))
	}
	atImportRows, atImportMovies, err := resolved()
	if err != nil {
		return nil, err
	}
	serverAtImport := server.snapshot()

	// The worker catches up: resolution of the rows stored manual, enrichment and posters.
	var lastRows int
	lastChange, drained := time.Now(), time.Duration(0)
	for deadline := time.Now().Add(30 * time.Minute); ; {
		n, _, err := resolved()
		if err != nil {
			return nil, err
		}
		if n != lastRows {
			lastRows, lastChange = n, time.Now()
		}
		counts, err := prod.QueueCounts(ctx)
		if err != nil {
			return nil, err
		}
		if counts["pending"]+counts["processing"] == 0 {
			drained = time.Since(start)
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the worker did not drain within 30 minutes: %v", counts)
		}
		time.Sleep(100 * time.Millisecond) // a benchmark's poll, not a test's synchronisation
	}
	finalRows, finalMovies, err := resolved()
	if err != nil {
		return nil, err
	}
	if finalRows != lastRows {
		lastChange = time.Now()
	}
	var distinct int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM movies`).Scan(&distinct); err != nil {
		return nil, err
	}
	resolvable := 0
	for _, f := range films {
		if f.ext != "" {
			resolvable++
		}
	}
	ws := work.snapshot()
	rows := float64(o.resolveRows)
	limited := fake.Limited()
	stop()
	fake.SetRateLimit(o.tmdbRate, tmdbBurst) // a fresh limiter, full, as this run's was
	bare, bareWall, err := resolveImport(ctx, filepath.Join(dir, "resolve-nocache.db"), fake, diary, o, log)
	if err != nil {
		return nil, fmt.Errorf("without the cache: %w", err)
	}
	label := fmt.Sprintf("resolve: %d-row Letterboxd import, %d films", o.resolveRows, len(films))
	return []row{
		{label + ", wall", fmt.Sprintf("import %s (%.0f rows/s); every resolvable row resolved after %s; worker idle after %s (enrichment and posters of %d films included); fake TMDb at %.0f req/s, %d answered 429",
			importWall.Round(10*time.Millisecond), rows/importWall.Seconds(), lastChange.Sub(start).Round(100*time.Millisecond),
			drained.Round(100*time.Millisecond), finalMovies, o.tmdbRate, limited)},
		{label + ", resolved", fmt.Sprintf("rows %.1f%% when the import returned, %.1f%% after the worker (%d of %d films on TMDb unambiguously: %.1f%% of rows can be); movies %d resolved of %d stored, %d resolved at import",
			100*float64(atImportRows)/rows, 100*float64(finalRows)/rows, resolvable, len(films),
			100*float64(resolvableRows(films, diary))/rows, finalMovies, distinct, atImportMovies)},
		{label + ", TMDb requests", fmt.Sprintf("resolution %.2f per row (import: %d searches, %d 429s; worker's resolution: %d searches); all API requests %.2f per row with the worker's enrichment and posters (%d details)",
			float64(serverAtImport.search+ws.search+serverAtImport.find+ws.find)/rows, serverAtImport.search, serverAtImport.limited,
			ws.search, float64(server.snapshot().api()+ws.api())/rows, ws.details)},
		{label + ", without the search cache", fmt.Sprintf("import %s; resolution %.2f requests per row (%d searches), the import alone",
			bareWall.Round(10*time.Millisecond), float64(bare.search+bare.find)/rows, bare.search)},
	}, nil
}

// resolveImport imports the diary into a fresh database at path with a resolver without the
// title-search cache, and no worker, and returns the TMDb requests and the wall time.
func resolveImport(ctx context.Context, path string, fake *tmdbtest.Server, diary string, o options, log *slog.Logger) (tmdbSnapshot, time.Duration, error) {
	store, err := sqlite.OpenMigrated(ctx, path, log)
	if err != nil {
		return tmdbSnapshot{}, 0, err
	}
	defer store.Close()
	var counts tmdbCounts
	client := tmdb.NewClient(tmdb.Config{APIURL: fake.APIURL(), ImageURL: fake.ImageURL(), APIKey: tmdbtest.Key,
		HTTP: &http.Client{Transport: counts.wrap(http.DefaultTransport)}})
	imports := importer.NewService(store, func(r io.Reader, format string) (importer.File, error) { return tabular.Open(r, format) },
		movie.NewResolver(store, client, log), log)
	u, err := store.CreateUser(ctx, domain.User{ID: uuid.New(), Username: "letterboxd", Email: "letterboxd@example.test",
		PasswordHash: "x", Role: domain.RoleStandard, CreatedAt: time.Now().UTC()})
	if err != nil {
		return tmdbSnapshot{}, 0, err
	}
	created, err := imports.Create(ctx, importer.Upload{UserID: u.ID, Format: "csv", Filename: "diary.csv", Body: strings.NewReader(diary)})
	if err != nil {
		return tmdbSnapshot{}, 0, err
	}
	all := make([]int, o.resolveRows)
	for i := range all {
		all[i] = i
	}
	start := time.Now()
	res, err := imports.Confirm(ctx, u.ID, created.Session.ID, all, false)
	if err != nil {
		return tmdbSnapshot{}, 0, err
	}
	if res.Imported != o.resolveRows {
		return tmdbSnapshot{}, 0, fmt.Errorf("imported %d of %d rows", res.Imported, o.resolveRows)
	}
	return counts.snapshot(), time.Since(start), nil
}

// benchHandler adapts a handler function as cmd/worker's handler does.
func benchHandler(name string, types []string, handle func(context.Context, domain.Event) error) delivery.Handler {
	return delivery.Handler{Name: name, Types: types, Handle: func(ctx context.Context, e delivery.Envelope) error {
		return handle(ctx, e.Event)
	}}
}

// tmdbCounts counts one client's requests to TMDb by kind.
type tmdbCounts struct {
	search, find, details, images, other, limited atomic.Int64
}

type tmdbSnapshot struct{ search, find, details, images, other, limited int64 }

func (s tmdbSnapshot) api() int64 { return s.search + s.find + s.details + s.other }

func (c *tmdbCounts) snapshot() tmdbSnapshot {
	return tmdbSnapshot{c.search.Load(), c.find.Load(), c.details.Load(), c.images.Load(), c.other.Load(), c.limited.Load()}
}

func (c *tmdbCounts) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		switch p := r.URL.Path; {
		case strings.HasSuffix(p, "/search/movie"):
			c.search.Add(1)
		case strings.Contains(p, "/find/"):
			c.find.Add(1)
		case strings.Contains(p, "/movie/"):
			c.details.Add(1)
		case strings.Contains(p, "/t/p/"):
			c.images.Add(1)
		default:
			c.other.Add(1)
		}
		resp, err := next.RoundTrip(r)
		if err == nil && resp.StatusCode == http.StatusTooManyRequests {
			c.limited.Add(1)
		}
		return resp, err
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// benchFilm is one distinct film of the generated diary; ext is "" when TMDb cannot resolve it.
type benchFilm struct {
	title string
	year  int
	ext   string
}

var (
	resolveAdjectives = []string{"Silent", "Crimson", "Hollow", "Burning", "Distant", "Golden", "Broken", "Endless", "Hidden",
		"Frozen", "Wild", "Quiet", "Bitter", "Electric", "Forgotten", "Savage", "Velvet", "Midnight", "Restless", "Scarlet",
		"Lonely", "Paper", "Iron", "Glass", "Northern", "Southern", "Sleeping", "Wandering", "Last", "First", "Secret", "Little",
		"Dark", "Bright", "Lost", "Fallen", "Rising", "Sweet", "Cold", "Summer"}
	resolveNouns = []string{"Harbour", "Garden", "Mirror", "Highway", "Kingdom", "Orchard", "Lighthouse", "Station", "Carnival",
		"Frontier", "Empire", "Season", "Circus", "Island", "Valley", "Citadel", "Voyage", "Requiem", "Parade", "Labyrinth",
		"Meadow", "Cathedral", "Tide", "Canyon", "Border", "Machine", "Ballad", "Witness", "Stranger", "Daughter", "Brother",
		"Winter", "River", "Mountain", "Desert", "Forest", "Horizon", "Engine", "Signal", "Promise", "Shadow", "Letter",
		"Passenger", "Hunter", "Dancer", "Soldier", "Widow", "Prophet", "Thief", "Pilgrim"}
)

// resolveDiary generates the diary: films distinct films (titles unique but for the namesakes,
// each with a year), the fake TMDb's catalogue (the films it has, their namesakes, and
// strangers), and rows rows of Letterboxd's diary.csv, every film once and the rest rewatches,
// skewed towards some films, in date order newest first. It is the same for the same sizes.
func resolveDiary(rows, films int) ([]benchFilm, []tmdbtest.Film, string) {
	rng := rand.New(rand.NewPCG(32, 5000))
	var titles []string
	for _, a := range resolveAdjectives {
		for _, n := range resolveNouns {
			titles = append(titles, "The "+a+" "+n)
		}
	}
	for _, n := range resolveNouns {
		for _, m := range resolveNouns {
			if n != m {
				titles = append(titles, n+" of the "+m, n+" and "+m)
			}
		}
	}
	rng.Shuffle(len(titles), func(i, j int) { titles[i], titles[j] = titles[j], titles[i] })
	films = min(films, len(titles)-resolveExtraFilms)
	var out []benchFilm
	var cat []tmdbtest.Film
	nextID := int64(100_000)
	add := func(title string, year int) string {
		nextID++
		poster := fmt.Sprintf("/bench%07d.jpg", nextID)
		cat = append(cat, tmdbtest.Film{ID: nextID, IMDbID: fmt.Sprintf("tt%08d", nextID), Title: title,
			ReleaseDate: fmt.Sprintf("%d-%02d-%02d", year, 1+nextID%12, 1+nextID%28), Director: "Bench Director",
			PosterPath: poster})
		return fmt.Sprintf("tmdb:%d", nextID)
	}
	for i := range films {
		f := benchFilm{title: titles[i], year: 1930 + rng.IntN(95)}
		switch {
		case i%resolveMissingEvery == resolveMissingEvery-1:
			// not on TMDb
		case i%resolveTwinEvery == resolveTwinEvery-2:
			add(f.title, f.year)
			add(f.title, f.year)
		default:
			f.ext = add(f.title, f.year)
			if i%resolveRemakeEvery == 3 {
				add(f.title, f.year+20+rng.IntN(20))
			}
		}
		out = append(out, f)
	}
	for _, t := range titles[films : films+resolveExtraFilms] {
		add(t, 1930+rng.IntN(95))
	}
	rng.Shuffle(len(cat), func(i, j int) { cat[i], cat[j] = cat[j], cat[i] })

	picks := make([]int, 0, rows)
	for i := range films {
		picks = append(picks, i)
	}
	for len(picks) < rows {
		picks = append(picks, rng.IntN(1+rng.IntN(films))) // skewed: low indices more often
	}
	picks = picks[:rows]
	rng.Shuffle(len(picks), func(i, j int) { picks[i], picks[j] = picks[j], picks[i] })
	var b strings.Builder
	b.WriteString("Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date\n")
	seen := make([]bool, films)
	day := time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC)
	// Oldest first is the order the picks are watched in; the file lists newest first.
	lines := make([]string, len(picks))
	for i, f := range picks {
		rewatch := ""
		if seen[f] {
			rewatch = "Yes"
		}
		seen[f] = true
		d := day.AddDate(0, 0, -(len(picks) - 1 - i)).Format("2006-01-02")
		lines[len(picks)-1-i] = fmt.Sprintf("%s,%s,%d,https://boxd.it/%x,%.1f,%s,,%s\n", d, out[f].title, out[f].year,
			0x10000+i, float64(1+rng.IntN(10))/2, rewatch, d)
	}
	for _, l := range lines {
		b.WriteString(l)
	}
	return out, cat, b.String()
}

// resolvableRows counts the diary's rows whose film TMDb can resolve.
func resolvableRows(films []benchFilm, diary string) int {
	can := map[string]bool{}
	for _, f := range films {
		if f.ext != "" {
			can[fmt.Sprintf("%s,%d", f.title, f.year)] = true
		}
	}
	n := 0
	for l := range strings.SplitSeq(strings.TrimSpace(diary), "\n") {
		parts := strings.SplitN(l, ",", 4)
		if len(parts) >= 3 && can[parts[1]+","+parts[2]] {
			n++
		}
	}
	return n
}
