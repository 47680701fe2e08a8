package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/delivery/deliverytest"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/adapters/storage"
	"moviesdiary/internal/adapters/storage/s3test"
	"moviesdiary/internal/adapters/tmdb"
	"moviesdiary/internal/adapters/tmdb/tmdbtest"
	"moviesdiary/internal/app"
	"moviesdiary/internal/config"
	"moviesdiary/internal/usecase/auth"
)

func openDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestMediaEndToEnd: a review of tt0083658 logged through the API, with the worker running on
// the same database and the fake TMDb: the poster is fetched and converted to WebP, the movie
// and its cast are enriched and indexed, search finds it and its profile has the cast.
// mediaWorld is a server (in process, over HTTP) and a worker on one database, with the fake
// TMDb; extra sets more environment.
type mediaWorld struct {
	fake   *tmdbtest.Server
	srv    *httptest.Server
	db     *sql.DB
	done   chan error
	cancel context.CancelFunc
	token  string
	// dataDir is DATA_DIR; poster the stored poster's key, once known.
	dataDir, poster string
}

func newMediaWorld(t *testing.T, extra map[string]string) *mediaWorld {
	t.Helper()
	w := &mediaWorld{fake: tmdbtest.New(t), done: make(chan error, 1)}
	env := map[string]string{
		"DATA_DIR": t.TempDir(), "DATABASE_URL": "", "TMDB_API_KEY": tmdbtest.Key, "TMDB_API_URL": w.fake.APIURL(),
		"TMDB_IMAGE_URL": w.fake.ImageURL(), "IMAGE_CONVERSION_ENABLED": "true", "WORKER_METRICS_ADDR": "",
		"EVENT_BUS_BACKEND": "db", "LOG_LEVEL": "error", "IMAGE_STORAGE_PATH": "",
	}
	for k, v := range extra {
		env[k] = v
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	w.dataDir = cfg.DataDir
	// A test scale of the retry schedule: set on the struct, since the environment may not move
	// it (EVENT_QUEUE_BACKOFF_BASE is refused outside the chaos harness).
	cfg.BackoffBase = 10 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel = cancel
	path, _ := cfg.DatabasePath()
	log := testLog(t)
	store := sqlitetest.Open(t, path)
	images, err := storage.Open(context.Background(), imageStorage(cfg)) // the server's, as cmd/server opens it
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { images.Close() })
	api, err := app.NewAPI(store, app.Options{Log: log, BaseURL: "http://diary.test", Secret: []byte("media end-to-end test secret!!!!"),
		AllowRegistration: true, Hasher: auth.Hasher{Memory: 64, Time: 1, Threads: 1},
		Metadata: tmdb.New(w.fake.APIURL(), tmdbtest.Key, nil), Images: images})
	if err != nil {
		t.Fatal(err)
	}
	w.srv = httptest.NewServer(api.Handler())
	t.Cleanup(w.srv.Close)
	go func() { w.done <- run(ctx, cfg, testLog(t), time.Now) }()
	t.Cleanup(w.stop(t))
	w.db = openDB(t, path)
	w.call(t, "POST", "/api/v1/auth/register", `{"email":"m@example.test","username":"media","password":"password-media"}`, 201)
	var login struct {
		Token string `json:"token"`
	}
	_ = json.Unmarshal(w.call(t, "POST", "/api/v1/auth/login", `{"email":"m@example.test","password":"password-media"}`, 200), &login)
	w.token = login.Token
	return w
}

// stop returns the clean-up that stops the worker and checks it stopped cleanly.
func (w *mediaWorld) stop(t *testing.T) func() {
	return func() {
		w.cancel()
		select {
		case err := <-w.done:
			if err != nil {
				t.Errorf("worker: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("worker did not stop")
		}
	}
}

// call sends a request (with the user's token once logged in) and checks the status (0: any).
func (w *mediaWorld) call(t *testing.T, method, path, body string, want int) []byte {
	t.Helper()
	req, _ := http.NewRequest(method, w.srv.URL+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if w.token != "" {
		req.Header.Set("Authorization", "Bearer "+w.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if want != 0 && resp.StatusCode != want {
		t.Fatalf("%s %s = %d %s, want %d", method, path, resp.StatusCode, b, want)
	}
	return b
}

// logReview logs a review of tt0083658 and returns the movie id.
func (w *mediaWorld) logReview(t *testing.T) string {
	t.Helper()
	var logged struct {
		Movie struct {
			ID uuid.UUID `json:"id"`
		} `json:"movie"`
	}
	_ = json.Unmarshal(w.call(t, "POST", "/api/v1/reviews", `{"external_metadata_id":"tt0083658","rating":5,"watched_at":"2024-03-01"}`, 201), &logged)
	return logged.Movie.ID.String()
}

// TestMediaEndToEnd: a review of tt0083658 logged through the API, with the worker running on
// the same database and the fake TMDb: the poster is fetched and converted to WebP, the movie
// and its cast are enriched and indexed, search finds it and its profile has the cast.
func TestMediaEndToEnd(t *testing.T) { testMediaEndToEnd(t, nil) }

// TestMediaEndToEndOnS3: the same with the images in a bucket of a real S3 server (versitygw on
// loopback): the worker stores the poster and its conversion there and deletes the original, the
// server streams the conversion from there, and nothing is written to the data directory.
func TestMediaEndToEndOnS3(t *testing.T) {
	srv := s3test.Start(t)
	srv.Bucket(t, "diary-images")
	w := testMediaEndToEnd(t, s3Env(srv, "diary-images"))
	if _, err := os.Stat(filepath.Join(w.dataDir, "images")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the data directory has an images directory (%v): images went to disk, not to S3", err)
	}
	if got := srv.ContentType(t, "diary-images", w.poster); got != "image/webp" {
		t.Errorf("the bucket's %s has Content-Type %q, want image/webp", w.poster, got)
	}
}

// s3Env is the environment of an image store in bucket on srv.
func s3Env(srv *s3test.Server, bucket string) map[string]string {
	return map[string]string{"IMAGE_STORAGE": "s3", "IMAGE_S3_ENDPOINT": srv.Endpoint, "IMAGE_S3_BUCKET": bucket,
		"IMAGE_S3_ACCESS_KEY": s3test.AccessKey, "IMAGE_S3_SECRET_KEY": s3test.SecretKey, "IMAGE_S3_REGION": s3test.Region,
		"IMAGE_S3_PATH_STYLE": "true", "IMAGE_S3_TIMEOUT": "5s"}
}

func testMediaEndToEnd(t *testing.T, extra map[string]string) *mediaWorld {
	w := newMediaWorld(t, extra)
	fake, db := w.fake, w.db
	movie := w.logReview(t)
	poster := "posters/" + movie + ".webp"
	deliverytest.Eventually(t, waitLimit, "poster fetched and converted, movie enriched and indexed", func() bool {
		var p sql.Null[string]
		_ = db.QueryRow(`SELECT poster_path FROM movies WHERE id = ?`, movie).Scan(&p)
		var profiles, docs int
		_ = db.QueryRow(`SELECT count(*) FROM movie_profiles WHERE movie_id = ?`, movie).Scan(&profiles)
		_ = db.QueryRow(`SELECT count(*) FROM search_movies WHERE movie_id = ? AND cast_names <> ''`, movie).Scan(&docs)
		return p.V == poster && profiles == 1 && docs == 1
	})

	var found struct {
		Movies struct {
			Items []struct {
				MovieID    string  `json:"movie_id"`
				PosterPath *string `json:"poster_path"`
			} `json:"items"`
		} `json:"movies"`
		People struct {
			TotalCount int `json:"total_count"`
		} `json:"people"`
	}
	_ = json.Unmarshal(w.call(t, "GET", "/api/v1/search?q=blade", "", 200), &found)
	if len(found.Movies.Items) != 1 || found.Movies.Items[0].MovieID != movie || found.Movies.Items[0].PosterPath == nil ||
		*found.Movies.Items[0].PosterPath != poster {
		t.Errorf("search q=blade = %+v", found)
	}
	_ = json.Unmarshal(w.call(t, "GET", "/api/v1/search?q=harrison", "", 200), &found)
	if found.People.TotalCount != 1 {
		t.Errorf("search q=harrison: %d people", found.People.TotalCount)
	}
	var profile struct {
		Cast []struct {
			Name string `json:"name"`
		} `json:"cast"`
		Keywords []any `json:"keywords"`
	}
	_ = json.Unmarshal(w.call(t, "GET", "/api/v1/movies/"+movie+"/profile", "", 200), &profile)
	if len(profile.Cast) != 4 || profile.Cast[0].Name != "Harrison Ford" || len(profile.Keywords) != 4 {
		t.Errorf("profile = %+v", profile)
	}
	img := w.call(t, "GET", "/images/"+poster, "", 200)
	if !bytes.HasPrefix(img, []byte("RIFF")) || http.DetectContentType(img) != "image/webp" {
		t.Errorf("/images/%s is %s", poster, http.DetectContentType(img))
	}
	// The original goes once image-cleanup has handled the ImageStored that the conversion
	// committed, which may come after the converted poster is already served.
	deliverytest.Eventually(t, waitLimit, "the original poster deleted", func() bool {
		resp, err := http.Get(w.srv.URL + "/images/posters/" + movie)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusNotFound
	})
	deliverytest.Eventually(t, waitLimit, "every event done", func() bool {
		var open int
		_ = db.QueryRow(`SELECT count(*) FROM event_queue WHERE status <> 'done'`).Scan(&open)
		return open == 0
	})
	// The thumbnails were made once the events are done: served immutable, not the fallback.
	for _, width := range []string{"185", "342"} {
		resp, err := http.Get(w.srv.URL + "/images/posters/" + movie + ".w" + width + ".webp")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/webp" ||
			resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Errorf("w%s thumbnail: %d %s %q", width, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"))
		}
	}
	// The movie images handler stored the backdrop and the three cast photos TMDb has (Edward
	// James Olmos has none), each downloaded once, converted like the poster, with a thumbnail.
	var backdrop, photo sql.Null[string]
	_ = db.QueryRow(`SELECT backdrop_key FROM movies WHERE id = ?`, movie).Scan(&backdrop)
	_ = db.QueryRow(`SELECT photo_key FROM people WHERE name = 'Harrison Ford'`).Scan(&photo)
	if want := "backdrops/" + movie + ".webp"; backdrop.V != want {
		t.Errorf("backdrop_key %q, want %q", backdrop.V, want)
	}
	if !strings.HasPrefix(photo.V, "people/") || !strings.HasSuffix(photo.V, ".webp") {
		t.Errorf("Harrison Ford's photo_key %q, want people/<id>.webp", photo.V)
	}
	if n := fake.Count("/t/p/w1280/eIi3klFf7mp3oL5EEF4mLIDs26r.jpg"); n != 1 {
		t.Errorf("backdrop downloaded %d times, want once", n)
	}
	resp, err := http.Get(w.srv.URL + "/images/backdrops/" + movie + ".w780.webp")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Errorf("w780 backdrop thumbnail: %d %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	for typ, want := range map[string]int{"PosterSynced": 1, "ImageStored": 5, "MovieDiscovered": 1, "MovieImagesRequested": 1} {
		var n int
		_ = db.QueryRow(`SELECT count(*) FROM event_queue WHERE event_type = ?`, typ).Scan(&n)
		if n != want {
			t.Errorf("%d %s in the outbox, want %d", n, typ, want)
		}
	}
	if n := fake.Count("/t/p/w500/63N9uy8nd9j7Eog2axPQ8lbr3Wj.jpg"); n != 1 {
		t.Errorf("poster downloaded %d times, want once", n)
	}
	w.poster = poster
	return w
}

// TestBadUpstreamIsRetriedOrDeadLettered: a poster that is not an image dead-letters the event at
// its first delivery with the reason kept, and stores nothing; a TMDb that answers the worker
// too slowly is retried with backoff (transient) until the attempts run out, writing nothing.
func TestBadUpstreamIsRetriedOrDeadLettered(t *testing.T) {
	row := func(w *mediaWorld, typ string) (status string, attempts int, lastErr string) {
		_ = w.db.QueryRow(`SELECT status, attempts, ifnull(last_error, '') FROM event_queue WHERE event_type = ?`, typ).
			Scan(&status, &attempts, &lastErr)
		return
	}
	t.Run("a poster that is not an image", func(t *testing.T) {
		w := newMediaWorld(t, nil)
		w.fake.SetOverride(func(rw http.ResponseWriter, r *http.Request) bool {
			if !strings.HasPrefix(r.URL.Path, "/t/p/") {
				return false
			}
			_, _ = rw.Write([]byte("<html>not a poster</html>"))
			return true
		})
		movie := w.logReview(t)
		deliverytest.Eventually(t, waitLimit, "MovieDiscovered dead-lettered", func() bool { s, _, _ := row(w, "MovieDiscovered"); return s == "dead_lettered" })
		if _, attempts, lastErr := row(w, "MovieDiscovered"); attempts > 1 || !strings.Contains(lastErr, "not an image") {
			t.Errorf("MovieDiscovered: %d attempts, last_error %q; want dead-lettered at once with the reason", attempts, lastErr)
		}
		var posters int
		_ = w.db.QueryRow(`SELECT count(*) FROM movies WHERE poster_path IS NOT NULL`).Scan(&posters)
		if posters != 0 {
			t.Error("a poster was set")
		}
		w.call(t, "GET", "/images/posters/"+movie, "", 404)
	})
	t.Run("a TMDb slower than TMDB_TIMEOUT", func(t *testing.T) {
		w := newMediaWorld(t, map[string]string{"TMDB_TIMEOUT": "200ms", "EVENT_QUEUE_MAX_ATTEMPTS": "3"})
		release := make(chan struct{})
		defer close(release)
		w.fake.SetOverride(func(rw http.ResponseWriter, r *http.Request) bool {
			// Only the worker's enrichment call hangs (the server's lookup asks for credits only).
			if !strings.HasPrefix(r.URL.Path, "/3/movie/") || r.URL.Query().Get("append_to_response") != "credits,keywords" {
				return false
			}
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return true
		})
		w.logReview(t)
		deliverytest.Eventually(t, waitLimit, "MovieEnrichmentRequested out of attempts", func() bool {
			s, _, _ := row(w, "MovieEnrichmentRequested")
			return s == "dead_lettered"
		})
		if _, attempts, lastErr := row(w, "MovieEnrichmentRequested"); attempts != 3 || !strings.Contains(lastErr, "deadline") {
			t.Errorf("MovieEnrichmentRequested: %d attempts, last_error %q; want 3 timed-out attempts", attempts, lastErr)
		}
		var profiles int
		_ = w.db.QueryRow(`SELECT count(*) FROM movie_profiles`).Scan(&profiles)
		if profiles != 0 {
			t.Error("a profile was written")
		}
	})
}

// TestWithoutTMDbKeyPostersAndEnrichmentAreOff: the handlers that need TMDb are not registered,
// and the worker says so once.
func TestWithoutTMDbKeyPostersAndEnrichmentAreOff(t *testing.T) {
	data := t.TempDir()
	store := sqlitetest.Open(t, data+"/x.db")
	var logs bytes.Buffer
	cfg := config.Config{DataDir: data, Media: config.Media{JobInterval: time.Hour, EnrichmentBatch: 1}}
	hs, err := mediaHandlers(context.Background(), cfg, store, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, h := range hs {
		names[h.Name] = true
	}
	for _, off := range []string{"poster-sync", "movie-images", "movie-enrichment", "person-enrichment", "image-conversion"} {
		if names[off] {
			t.Errorf("%s registered without TMDB_API_KEY / IMAGE_CONVERSION_ENABLED", off)
		}
	}
	for _, on := range []string{"image-cleanup", "image-thumbnails", "search-index", "search-cleanup", "search-reindex", "wrapup-generation"} {
		if !names[on] {
			t.Errorf("%s not registered", on)
		}
	}
	if n := strings.Count(logs.String(), "TMDB_API_KEY is not set"); n != 1 {
		t.Errorf("said %d times that TMDb is off, want once:\n%s", n, logs.String())
	}
}

// TestS3OutageIsRetried: with the S3 server down, the poster sync fails as a transient error
// (the event is retried, its error kept, nothing dead-lettered); once the server is back, a
// retry stores the poster and the server serves it.
func TestS3OutageIsRetried(t *testing.T) {
	srv := s3test.Start(t)
	srv.Bucket(t, "diary-images")
	env := s3Env(srv, "diary-images")
	env["IMAGE_S3_TIMEOUT"] = "1s"
	env["EVENT_QUEUE_MAX_ATTEMPTS"] = "10000" // the test's backoff is milliseconds: attempts come fast
	env["IMAGE_CONVERSION_ENABLED"] = "false"
	w := newMediaWorld(t, env)
	srv.Stop()
	movie := w.logReview(t)
	deliverytest.Eventually(t, waitLimit, "the poster sync failed on the S3 outage and is pending a retry", func() bool {
		var n int
		_ = w.db.QueryRow(`SELECT count(*) FROM event_queue WHERE event_type IN ('MovieDiscovered', 'MovieEnrichmentRequested')
			AND status = 'pending' AND attempts >= 2 AND last_error LIKE '%storage: s3%'`).Scan(&n)
		return n > 0
	})
	var dead int
	_ = w.db.QueryRow(`SELECT count(*) FROM event_queue WHERE status = 'dead_lettered'`).Scan(&dead)
	if dead != 0 {
		t.Fatalf("%d events dead-lettered by an S3 outage, want none", dead)
	}
	srv.Restart(t)
	poster := "posters/" + movie
	deliverytest.Eventually(t, waitLimit, "the poster stored once S3 is back", func() bool {
		var p sql.Null[string]
		_ = w.db.QueryRow(`SELECT poster_path FROM movies WHERE id = ?`, movie).Scan(&p)
		return p.V == poster
	})
	img := w.call(t, "GET", "/images/"+poster, "", 200)
	if http.DetectContentType(img) != "image/jpeg" {
		t.Errorf("/images/%s is %s", poster, http.DetectContentType(img))
	}
}

// TestWorkerStopsOnAMissingBucket: IMAGE_STORAGE=s3 with a bucket the (running) S3 server does
// not have stops the worker at start-up, naming the bucket.
func TestWorkerStopsOnAMissingBucket(t *testing.T) {
	srv := s3test.Start(t)
	t.Setenv("DATA_DIR", t.TempDir())
	t.Setenv("WORKER_METRICS_ADDR", "")
	for k, v := range s3Env(srv, "no-such-bucket") {
		t.Setenv(k, v)
	}
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	err = run(context.Background(), cfg, testLog(t), time.Now)
	if err == nil || !strings.Contains(err.Error(), `bucket "no-such-bucket" does not exist`) {
		t.Fatalf("run = %v, want the missing bucket named", err)
	}
}
