package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/storage"
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
func TestMediaEndToEnd(t *testing.T) {
	fake := tmdbtest.New(t)
	data := t.TempDir()
	for k, v := range map[string]string{
		"DATA_DIR": data, "DATABASE_URL": "", "TMDB_API_KEY": tmdbtest.Key, "TMDB_API_URL": fake.APIURL(),
		"TMDB_IMAGE_URL": fake.ImageURL(), "IMAGE_CONVERSION_ENABLED": "true", "WORKER_METRICS_ADDR": "",
		"EVENT_BUS_BACKEND": "db", "EVENT_QUEUE_BACKOFF_BASE": "10ms", "LOG_LEVEL": "error", "IMAGE_STORAGE_PATH": "",
	} {
		t.Setenv(k, v)
	}
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// The server, in process, on the same files.
	path, _ := cfg.DatabasePath()
	store, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := store.Migrate(ctx, log); err != nil {
		t.Fatal(err)
	}
	images, err := storage.OpenLocal(cfg.ImageDir())
	if err != nil {
		t.Fatal(err)
	}
	defer images.Close()
	api, err := app.NewAPI(store, app.Options{Log: log, BaseURL: "http://diary.test", Secret: []byte("media end-to-end test secret!!!!"),
		AllowRegistration: true, Hasher: auth.Hasher{Memory: 64, Time: 1, Threads: 1},
		Metadata: tmdb.New(fake.APIURL(), tmdbtest.Key, nil), Images: images})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.Handler())
	defer srv.Close()

	done := make(chan error, 1)
	go func() { done <- run(ctx, cfg, discard()) }()

	call := func(method, path, token, body string, want int) []byte {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
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
	call("POST", "/api/v1/auth/register", "", `{"email":"m@example.test","username":"media","password":"password-media"}`, 201)
	var login struct {
		Token string `json:"token"`
	}
	_ = json.Unmarshal(call("POST", "/api/v1/auth/login", "", `{"email":"m@example.test","password":"password-media"}`, 200), &login)
	var logged struct {
		Movie struct {
			ID uuid.UUID `json:"id"`
		} `json:"movie"`
	}
	_ = json.Unmarshal(call("POST", "/api/v1/reviews", login.Token, `{"external_metadata_id":"tt0083658","rating":5,"watched_at":"2024-03-01"}`, 201), &logged)
	movie := logged.Movie.ID.String()

	db := openDB(t, path)
	poster := "posters/" + movie + ".webp"
	waitFor(t, "poster fetched and converted, movie enriched and indexed", func() bool {
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
	_ = json.Unmarshal(call("GET", "/api/v1/search?q=blade", "", "", 200), &found)
	if len(found.Movies.Items) != 1 || found.Movies.Items[0].MovieID != movie || found.Movies.Items[0].PosterPath == nil ||
		*found.Movies.Items[0].PosterPath != poster {
		t.Errorf("search q=blade = %+v", found)
	}
	_ = json.Unmarshal(call("GET", "/api/v1/search?q=harrison", "", "", 200), &found)
	if found.People.TotalCount != 1 {
		t.Errorf("search q=harrison: %d people", found.People.TotalCount)
	}
	var profile struct {
		Cast []struct {
			Name string `json:"name"`
		} `json:"cast"`
		Keywords []any `json:"keywords"`
	}
	_ = json.Unmarshal(call("GET", "/api/v1/movies/"+movie+"/profile", "", "", 200), &profile)
	if len(profile.Cast) != 4 || profile.Cast[0].Name != "Harrison Ford" || len(profile.Keywords) != 4 {
		t.Errorf("profile = %+v", profile)
	}
	img := call("GET", "/images/"+poster, "", "", 200)
	if !bytes.HasPrefix(img, []byte("RIFF")) || http.DetectContentType(img) != "image/webp" {
		t.Errorf("/images/%s is %s", poster, http.DetectContentType(img))
	}
	call("GET", "/images/posters/"+movie, "", "", 404) // the original is gone
	waitFor(t, "every event done", func() bool {
		var open int
		_ = db.QueryRow(`SELECT count(*) FROM event_queue WHERE status <> 'done'`).Scan(&open)
		return open == 0
	})
	for typ, want := range map[string]int{"PosterSynced": 1, "ImageStored": 1, "MovieDiscovered": 1} {
		var n int
		_ = db.QueryRow(`SELECT count(*) FROM event_queue WHERE event_type = ?`, typ).Scan(&n)
		if n != want {
			t.Errorf("%d %s in the outbox, want %d", n, typ, want)
		}
	}
	if n := fake.Count("/t/p/w500/63N9uy8nd9j7Eog2axPQ8lbr3Wj.jpg"); n != 1 {
		t.Errorf("poster downloaded %d times, want once", n)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("worker: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("worker did not stop")
	}
}

// TestWithoutTMDbKeyPostersAndEnrichmentAreOff: the handlers that need TMDb are not registered,
// and the worker says so once.
func TestWithoutTMDbKeyPostersAndEnrichmentAreOff(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	data := t.TempDir()
	store, err := sqlite.Open(ctx, data+"/x.db")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := store.Migrate(ctx, discard()); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	cfg := config.Config{DataDir: data, Media: config.Media{JobInterval: time.Hour, EnrichmentBatch: 1}}
	hs, err := mediaHandlers(ctx, cfg, store, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, h := range hs {
		names[h.Name] = true
	}
	for _, off := range []string{"poster-sync", "movie-enrichment", "person-enrichment", "image-conversion"} {
		if names[off] {
			t.Errorf("%s registered without TMDB_API_KEY / IMAGE_CONVERSION_ENABLED", off)
		}
	}
	for _, on := range []string{"image-cleanup", "search-index", "search-cleanup", "search-reindex", "wrapup-generation"} {
		if !names[on] {
			t.Errorf("%s not registered", on)
		}
	}
	if n := strings.Count(logs.String(), "TMDB_API_KEY is not set"); n != 1 {
		t.Errorf("said %d times that TMDb is off, want once:\n%s", n, logs.String())
	}
}
