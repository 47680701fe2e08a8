package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"golang.org/x/image/draw"

	"moviesdiary/internal/adapters/imaging"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/storage"
	"moviesdiary/internal/app"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/auth"
)

const (
	// gridReviewsDefault is the grid scenario's diary: one user's reviews, each of a movie of
	// its own with a stored poster.
	gridReviewsDefault = 10_000
	// gridSequential is how many pages one client reads in a row; gridClients clients then read
	// gridConcurrent pages in all.
	gridSequential = 300
	gridClients    = 8
	gridConcurrent = 800
)

// coverImg is a grid card's cover: its src and, when the poster has thumbnails, its srcset.
var coverImg = regexp.MustCompile(`class="cover" src="([^"]+)"(?: srcset="([^"]+)")?`)

// gridScenario serves the diary grid page (GET /diary, signed in, 20 cards a page) of a user
// with gridReviews reviews from the real site over loopback HTTP, and reports its latency read by
// one client and by gridClients at once, the HTML's bytes, and the bytes a browser fetches for
// the page: the HTML and the 20 covers (lazy loading's distance threshold is more than a page of
// cards, so a browser fetches them all), with the w185 thumbnails (1× screens), the w342 (2×),
// and the full w500 posters the grid showed before it had thumbnails.
func gridScenario(ctx context.Context, dir string, o options, log *slog.Logger) ([]row, error) {
	path := filepath.Join(dir, "grid.db")
	store, err := sqlite.OpenMigrated(ctx, path, log)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	images, err := storage.OpenLocal(filepath.Join(dir, "grid-images"))
	if err != nil {
		return nil, err
	}
	defer images.Close()
	site, err := app.NewSite(store, app.Options{Log: log, BaseURL: "http://diary.test", AllowRegistration: true,
		Secret: []byte("grid bench secret, thirty-two bytes"), Hasher: auth.Hasher{Memory: 64, Time: 1, Threads: 1}, Images: images})
	if err != nil {
		return nil, err
	}
	srv := httptest.NewServer(site.Handler())
	defer srv.Close()
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport:     &http.Transport{MaxIdleConnsPerHost: gridClients, DisableCompression: true}}
	defer client.CloseIdleConnections()
	if err := gridRegister(ctx, client, srv.URL); err != nil {
		return nil, err
	}
	var userID string
	db, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=on&_busy_timeout=10000")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if err := db.QueryRowContext(ctx, `SELECT id FROM users WHERE username = 'grid'`).Scan(&userID); err != nil {
		return nil, err
	}
	firstPage, err := gridSeed(ctx, db, userID, o.gridReviews)
	if err != nil {
		return nil, err
	}
	poster, err := benchPoster()
	if err != nil {
		return nil, err
	}
	// The first page's posters and their thumbnails, as the poster sync and the worker's
	// thumbnails store them.
	for _, id := range firstPage {
		key := domain.PosterKey(id)
		if err := images.Put(ctx, key, poster); err != nil {
			return nil, err
		}
		widths := domain.ThumbWidths(key)
		thumbs, err := imaging.WebP{}.Thumbnails(poster, widths)
		if err != nil {
			return nil, err
		}
		for i, w := range widths {
			if err := images.Put(ctx, domain.ThumbKey(key, w), thumbs[i]); err != nil {
				return nil, err
			}
		}
	}

	get := func(path string) (int, time.Duration, string, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, 0, "", err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(start)
		if err != nil {
			return 0, 0, "", err
		}
		if resp.StatusCode != http.StatusOK {
			return 0, 0, "", fmt.Errorf("GET %s: %d", path, resp.StatusCode)
		}
		return len(body), d, string(body), nil
	}
	for range 20 { // warm the statement cache and the page cache
		if _, _, _, err := get("/diary"); err != nil {
			return nil, err
		}
	}
	var seq []time.Duration
	var html string
	var htmlBytes int
	for range gridSequential {
		n, d, body, err := get("/diary")
		if err != nil {
			return nil, err
		}
		seq, htmlBytes, html = append(seq, d), n, body
	}
	var deep []time.Duration
	last := (o.gridReviews + 19) / 20
	for range gridSequential / 3 {
		_, d, _, err := get(fmt.Sprintf("/diary?page=%d", last))
		if err != nil {
			return nil, err
		}
		deep = append(deep, d)
	}
	var (
		mu   sync.Mutex
		conc []time.Duration
		wg   sync.WaitGroup
		errs = make(chan error, gridClients)
	)
	start := time.Now()
	for range gridClients {
		wg.Go(func() {
			for range gridConcurrent / gridClients {
				_, d, _, err := get("/diary")
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				conc = append(conc, d)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}

	covers := coverImg.FindAllStringSubmatch(html, -1)
	if len(covers) != 20 {
		return nil, fmt.Errorf("the grid page has %d covers, want 20", len(covers))
	}
	var small, large, full int
	for _, c := range covers {
		src, srcset := c[1], c[2]
		fields := strings.Fields(srcset)
		if len(fields) != 4 {
			return nil, fmt.Errorf("cover %s has srcset %q, want w185 and w342", src, srcset)
		}
		key, _, ok := domain.ParseThumbKey(strings.TrimPrefix(src, "/images/"))
		if !ok {
			return nil, fmt.Errorf("cover %s is not a thumbnail", src)
		}
		for _, f := range []struct {
			path string
			sum  *int
		}{{src, &small}, {fields[2], &large}, {"/images/" + key, &full}} {
			n, _, _, err := get(f.path)
			if err != nil {
				return nil, err
			}
			*f.sum += n
		}
	}
	label := fmt.Sprintf("grid: GET /diary at %d reviews", o.gridReviews)
	kib := func(n int) string { return fmt.Sprintf("%.0f KiB", float64(n)/1024) }
	percentiles := func(s []time.Duration) string { return strings.Replace(percentiles(s), " events)", " pages)", 1) }
	return []row{
		{label + ", 1 client", percentiles(seq)},
		{label + fmt.Sprintf(", %d clients", gridClients), fmt.Sprintf("%s; %.0f pages/s", percentiles(conc),
			float64(len(conc))/elapsed.Seconds())},
		{label + fmt.Sprintf(", last page (%d), 1 client", last), percentiles(deep)},
		{label + ", bytes of a page", fmt.Sprintf("HTML %s (no compression); with its 20 covers: %s with w185 thumbnails, %s with w342 (2× screens), %s with the full w500 posters (%s each)",
			kib(htmlBytes), kib(htmlBytes+small), kib(htmlBytes+large), kib(htmlBytes+full), kib(len(poster)))},
	}, nil
}

// gridRegister creates the user "grid" through the registration form and keeps its session in
// the client's jar.
func gridRegister(ctx context.Context, client *http.Client, base string) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/register", nil)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	u, _ := url.Parse(base)
	var csrf string
	for _, c := range client.Jar.Cookies(u) {
		if strings.HasSuffix(c.Name, "md_csrf") {
			csrf = c.Value
		}
	}
	form := url.Values{"email": {"grid@example.test"}, "username": {"grid"}, "password": {"correct horse"},
		"password2": {"correct horse"}, "csrf": {csrf}}
	req, _ = http.NewRequestWithContext(ctx, http.MethodPost, base+"/register", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err = client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		return fmt.Errorf("register: %d", resp.StatusCode)
	}
	return nil
}

// gridSeed stores n reviews by the user, one a day back from today, each of a movie of its own
// with a poster key, straight into the tables in one transaction (the triggers keep the counts
// as any write would), and returns the movies of the first page (the 20 most recent).
func gridSeed(ctx context.Context, db *sql.DB, userID string, n int) ([]uuid.UUID, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	movies, err := tx.PrepareContext(ctx, `INSERT INTO movies (id, external_metadata_id, title, release_year, director, poster_path)
		VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return nil, err
	}
	defer movies.Close()
	reviews, err := tx.PrepareContext(ctx, `INSERT INTO reviews (id, user_id, movie_id, rating, comment, watch_medium,
		watched_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'streaming', ?, ?, ?)`)
	if err != nil {
		return nil, err
	}
	defer reviews.Close()
	rng := rand.New(rand.NewPCG(10, 10_000))
	today := time.Now().UTC().Truncate(24 * time.Hour)
	var first []uuid.UUID
	for i := range n {
		id := uuid.New()
		if i < 20 {
			first = append(first, id)
		}
		title := fmt.Sprintf("%s %s %d", resolveAdjectives[rng.IntN(len(resolveAdjectives))], resolveNouns[rng.IntN(len(resolveNouns))], i)
		if _, err := movies.ExecContext(ctx, id.String(), fmt.Sprintf("tmdb:%d", 500_000+i), title, 1930+rng.IntN(95),
			"Bench Director", domain.PosterKey(id)); err != nil {
			return nil, err
		}
		at := today.AddDate(0, 0, -i).Add(20 * time.Hour).Format("2006-01-02T15:04:05.000Z")
		if _, err := reviews.ExecContext(ctx, uuid.NewString(), userID, id.String(), 1+rng.IntN(5),
			"A seeded review, long enough to look like one.", at, at, at); err != nil {
			return nil, err
		}
	}
	return first, tx.Commit()
}

// benchPoster is a 500×750 JPEG, TMDb's w500 poster size, with a photo's detail: a real video
// frame from Go's image test data, scaled up, with film grain; without Go's sources, a
// synthetic picture of the same size.
func benchPoster() ([]byte, error) {
	img := image.NewRGBA(image.Rect(0, 0, 500, 750))
	if f, err := os.Open(filepath.Join(runtime.GOROOT(), "src", "image", "testdata", "video-001.jpeg")); err == nil {
		src, err := jpeg.Decode(f)
		f.Close()
		if err != nil {
			return nil, err
		}
		// The frame's middle, upright: a poster's aspect ratio.
		b := src.Bounds()
		w := b.Dy() * 2 / 3
		crop := image.Rect(b.Min.X+(b.Dx()-w)/2, b.Min.Y, b.Min.X+(b.Dx()+w)/2, b.Max.Y)
		draw.CatmullRom.Scale(img, img.Bounds(), src, crop, draw.Src, nil)
	} else {
		for y := range 750 {
			for x := range 500 {
				img.Set(x, y, color.RGBA{R: uint8(x * y / 700), G: uint8(y / 3), B: uint8(255 - x/2), A: 255})
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < len(img.Pix); i += 4 {
		g := rng.IntN(25) - 12
		for c := range 3 {
			img.Pix[i+c] = uint8(min(255, max(0, int(img.Pix[i+c])+g)))
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
