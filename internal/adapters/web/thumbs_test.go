package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"moviesdiary/internal/adapters/tmdb/tmdbtest"
)

// TestPagesShowPosterThumbnails: lists show a stored poster's w185 thumbnail, the movie page
// the w185 with the w342 for high-density screens; until the worker made them, the thumbnail
// URL answers the full image.
func TestPagesShowPosterThumbnails(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	movie := strings.TrimPrefix(ann.logReview("Heat", "1995", 4, ""), "/movie/")
	key := "posters/" + movie + ".webp"
	b.Exec(`UPDATE movies SET poster_path = ? WHERE id = ?`, key, movie)
	thumb := "/images/posters/" + movie + ".w185.webp"
	contains(t, mustStatus(t, ann.get("/diary?view=list"), http.StatusOK), `class="poster" src="`+thumb+`"`)
	// The grid: w185 for src, w342 beside it by width, sized against layout shift.
	contains(t, mustStatus(t, ann.get("/diary"), http.StatusOK), `class="cover" src="`+thumb+`" srcset="`+thumb+
		` 185w, /images/posters/`+movie+`.w342.webp 342w"`, `width="185" height="278" loading="lazy"`)
	contains(t, mustStatus(t, ann.get("/movie/"+movie), http.StatusOK),
		`src="`+thumb+`" srcset="`+thumb+` 1x, /images/posters/`+movie+`.w342.webp 2x"`)

	if err := b.Local.Put(context.Background(), "posters/"+movie, tmdbtest.PosterJPEG()); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(b.srv.URL + thumb)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/jpeg" {
		t.Errorf("thumbnail not made yet: %d %s, want the full poster", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}
