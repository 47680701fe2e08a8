package main

import (
	"database/sql"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/domain"
)

// TestUnresolvedMovieResolvedThroughTheOutbox: with TMDb's search down while the API stores the
// reviews, the server keeps the manual movies (the write does not fail); the worker's
// movie-resolution handler, fed by MovieResolutionRequested from the outbox, retries and then
// resolves "Arrival" (2016) to tmdb:329865, which enrichment and the poster sync then follow;
// "The Thing" (1982), already stored under tmdb:1091, is not resolved into a second copy but
// merged into that movie: its review moves there and its id redirects.
func TestUnresolvedMovieResolvedThroughTheOutbox(t *testing.T) {
	w := newMediaWorld(t, nil)
	down := searchDown(w)
	thing := movieOf(t, w.call(t, "POST", "/api/v1/reviews", `{"external_metadata_id":"tmdb:1091","rating":4,"watched_at":"2024-03-01"}`, 201))
	arrival := movieOf(t, w.call(t, "POST", "/api/v1/reviews",
		`{"manual_title":"arrival","manual_release_year":2016,"rating":5,"watched_at":"2024-03-02"}`, 201))
	manualThing := movieOf(t, w.call(t, "POST", "/api/v1/reviews",
		`{"manual_title":"Thing, The","manual_release_year":1982,"rating":3,"watched_at":"2024-03-03"}`, 201))
	db := w.db
	var unresolved int
	_ = db.QueryRow(`SELECT count(*) FROM movies WHERE external_metadata_id IS NULL AND id IN (?, ?)`, arrival.ID, manualThing.ID).Scan(&unresolved)
	if unresolved != 2 || manualThing.ID == thing.ID {
		t.Fatalf("with the search down the API stored %+v and %+v, want two manual movies", arrival, manualThing)
	}
	down.Store(false)

	deliverytest.Eventually(t, waitLimit, "Arrival resolved and enriched, The Thing merged", func() bool {
		var ext, redirect sql.Null[string]
		var profiles int
		_ = db.QueryRow(`SELECT external_metadata_id FROM movies WHERE id = ?`, arrival.ID).Scan(&ext)
		_ = db.QueryRow(`SELECT count(*) FROM movie_profiles WHERE movie_id = ?`, arrival.ID).Scan(&profiles)
		_ = db.QueryRow(`SELECT new_id FROM movie_redirects WHERE old_id = ?`, manualThing.ID).Scan(&redirect)
		return ext.V == "tmdb:329865" && profiles == 1 && redirect.V == thing.ID
	})
	deliverytest.Eventually(t, waitLimit, "every event done", func() bool {
		var open int
		_ = db.QueryRow(`SELECT count(*) FROM event_queue WHERE status <> 'done'`).Scan(&open)
		return open == 0
	})
	var movies, thingReviews int
	_ = db.QueryRow(`SELECT count(*) FROM movies`).Scan(&movies)
	_ = db.QueryRow(`SELECT count(*) FROM reviews WHERE movie_id = ?`, thing.ID).Scan(&thingReviews)
	if movies != 2 || thingReviews != 2 {
		t.Errorf("%d movies (want 2: nothing copied), %d reviews of The Thing (want both)", movies, thingReviews)
	}
	// The merged movie's old page answers the film.
	if got := movieOf(t, w.call(t, "GET", "/api/v1/movies/"+manualThing.ID, "", 200)); got.ID != thing.ID {
		t.Errorf("GET /movies/%s answers %s, want The Thing %s", manualThing.ID, got.ID, thing.ID)
	}
	var requested int
	_ = db.QueryRow(`SELECT count(*) FROM event_queue WHERE event_type = 'MovieResolutionRequested'`).Scan(&requested)
	if requested != 2 {
		t.Errorf("%d MovieResolutionRequested, want 2 (one per manual movie)", requested)
	}

	// With the search up, the API resolves a typed title at once: the stored film, no new movie.
	again := movieOf(t, w.call(t, "POST", "/api/v1/reviews",
		`{"manual_title":"Arrival","manual_release_year":2016,"rating":4,"watched_at":"2024-03-04"}`, 201))
	if again.ID != arrival.ID {
		t.Errorf("Arrival typed again is movie %s, want the resolved %s", again.ID, arrival.ID)
	}
	solaris := movieOf(t, w.call(t, "POST", "/api/v1/reviews",
		`{"manual_title":"Solaris","manual_release_year":1972,"manual_director":"Andrei Tarkovsky","rating":4,"watched_at":"2024-03-05"}`, 201))
	if solaris.ID != domain.MovieIDFor("tmdb:593").String() {
		t.Errorf("Solaris (1972) = %+v, want tmdb:593 resolved by the API", solaris)
	}
}

type loggedMovie struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

func movieOf(t *testing.T, body []byte) loggedMovie {
	t.Helper()
	var logged struct {
		Movie loggedMovie `json:"movie"`
	}
	if err := json.NewDecoder(strings.NewReader(string(body))).Decode(&logged); err != nil || logged.Movie.ID == "" {
		t.Fatalf("review answer %s: %v", body, err)
	}
	return logged.Movie
}

// searchDown makes the fake TMDb answer its title search with TMDb's 503 while the returned flag
// is set (it starts set); every other endpoint answers as usual.
func searchDown(w *mediaWorld) *atomic.Bool {
	var down atomic.Bool
	down.Store(true)
	w.fake.SetOverride(func(rw http.ResponseWriter, r *http.Request) bool {
		if !down.Load() || r.URL.Path != "/3/search/movie" {
			return false
		}
		http.Error(rw, `{"status_code":11,"status_message":"Internal error"}`, http.StatusServiceUnavailable)
		return true
	})
	return &down
}
