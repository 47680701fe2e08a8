package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"testing"

	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/domain"
)

// TestOneFilmOneMovieAcrossSources: the story. With TMDb's search down, a diary row typed
// by title ("Arrival", 2016, as a Letterboxd import stores it) becomes a manual movie, and
// "Solaris" (1972) goes on the watchlist by title; a Plex scrobble naming tmdb://329865 (its
// token auto-confirms) then stores the film under its TMDb id, beside the manual one. Once the
// search is back the worker resolves the manual Arrival, finds the film stored, and merges: one
// movie with both viewings, and the manual id answers it. Solaris is resolved to tmdb:593, and a
// Jellyfin watch naming it by its TMDb id takes it off the watchlist.
func TestOneFilmOneMovieAcrossSources(t *testing.T) {
	w := newMediaWorld(t, nil)
	down := searchDown(w)
	manual := movieOf(t, w.call(t, "POST", "/api/v1/reviews",
		`{"manual_title":"Arrival","manual_release_year":2016,"rating":4,"watched_at":"2024-03-02"}`, 201))
	var entry struct {
		Movie loggedMovie `json:"movie"`
	}
	if err := json.Unmarshal(w.call(t, "POST", "/api/v1/watchlist", `{"manual_title":"Solaris","manual_release_year":1972}`, 201),
		&entry); err != nil || entry.Movie.ID == "" {
		t.Fatalf("watchlist add: %v %+v", err, entry)
	}
	solaris := entry.Movie

	token := func(provider string) string {
		var tok struct {
			Token string `json:"token"`
		}
		_ = json.Unmarshal(w.call(t, "POST", "/api/v1/settings/webhook-tokens",
			`{"provider":"`+provider+`","auto_confirm_rating":5}`, 200), &tok)
		if tok.Token == "" {
			t.Fatalf("no %s token", provider)
		}
		return tok.Token
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("payload", `{"event":"media.scrobble","Metadata":{"type":"movie","title":"Arrival","year":2016,`+
		`"guid":"plex://movie/5d776b59ad5437001f79c6f8","Guid":[{"id":"imdb://tt2543164"},{"id":"tmdb://329865"}]}}`)
	_ = mw.Close()
	req, _ := http.NewRequest("POST", w.srv.URL+"/api/v1/webhooks/plex?token="+token("plex"), &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("plex webhook: %v %v", resp, err)
	}
	resp.Body.Close()
	film := domain.MovieIDFor("tmdb:329865").String()
	db := w.db
	var split int
	_ = db.QueryRow(`SELECT count(*) FROM reviews WHERE movie_id IN (?, ?)`, manual.ID, film).Scan(&split)
	if split != 2 || manual.ID == film {
		t.Fatalf("before resolution: %d reviews of the two Arrivals (want 2), manual %s", split, manual.ID)
	}

	down.Store(false)
	deliverytest.Eventually(t, waitLimit, "the manual Arrival merged into the film, Solaris resolved", func() bool {
		var redirect, ext sql.Null[string]
		_ = db.QueryRow(`SELECT new_id FROM movie_redirects WHERE old_id = ?`, manual.ID).Scan(&redirect)
		_ = db.QueryRow(`SELECT external_metadata_id FROM movies WHERE id = ?`, solaris.ID).Scan(&ext)
		return redirect.V == film && ext.V == "tmdb:593"
	})
	var arrivals, viewings int
	_ = db.QueryRow(`SELECT count(*) FROM movies WHERE lower(title) = 'arrival'`).Scan(&arrivals)
	_ = db.QueryRow(`SELECT count(*) FROM reviews WHERE movie_id = ?`, film).Scan(&viewings)
	if arrivals != 1 || viewings != 2 {
		t.Errorf("%d Arrival movies with %d viewings, want one with both", arrivals, viewings)
	}
	var page struct {
		Movie loggedMovie `json:"movie"`
		Stats struct {
			TotalCount int `json:"total_count"`
		} `json:"stats"`
	}
	if err := json.Unmarshal(w.call(t, "GET", "/api/v1/movies/"+manual.ID, "", 200), &page); err != nil ||
		page.Movie.ID != film || page.Stats.TotalCount != 2 {
		t.Errorf("GET the manual id: %+v, %v; want the film with 2 reviews", page, err)
	}

	jf := `{"NotificationType":"PlaybackStop","ItemType":"Movie","Name":"Solaris","Year":1972,"PlayedToCompletion":true,` +
		`"Provider_tmdb":"593"}`
	req, _ = http.NewRequest("POST", w.srv.URL+"/api/v1/webhooks/jellyfin?token="+token("jellyfin"), bytes.NewBufferString(jf))
	req.Header.Set("Content-Type", "application/json")
	if resp, err = http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("jellyfin webhook: %v %v", resp, err)
	}
	resp.Body.Close()
	var watched, listed int
	_ = db.QueryRow(`SELECT count(*) FROM reviews WHERE movie_id = ?`, solaris.ID).Scan(&watched)
	_ = db.QueryRow(`SELECT count(*) FROM watchlist`).Scan(&listed)
	if watched != 1 || listed != 0 {
		t.Errorf("after the Jellyfin watch of tmdb:593: %d reviews of the watchlist's Solaris (want 1), %d watchlist entries (want 0)",
			watched, listed)
	}
}
