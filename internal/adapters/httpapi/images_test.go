package httpapi_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"moviesdiary/internal/adapters/storage"
	"moviesdiary/internal/adapters/storage/s3test"
	"moviesdiary/internal/adapters/tmdb/tmdbtest"
	"moviesdiary/internal/app"
	"moviesdiary/internal/app/mediatest"
)

// imageServer is the API with an image directory; dir is that directory.
func imageServer(t *testing.T) (srv *httptest.Server, images *storage.Local, dir string) {
	t.Helper()
	env := mediatest.New(t)
	api, err := app.NewAPI(env.Store, app.Options{Log: env.Log, BaseURL: "http://diary.test", Secret: testSecret,
		Hasher: fastHasher, Images: env.Local})
	if err != nil {
		t.Fatal(err)
	}
	srv = httptest.NewServer(api.Handler())
	t.Cleanup(srv.Close)
	return srv, env.Local, env.Local.Dir()
}

func TestImagesServesStoredImages(t *testing.T) {
	t.Parallel()
	srv, images, _ := imageServer(t)
	ctx := context.Background()
	poster := tmdbtest.PosterJPEG()
	if err := images.Put(ctx, "posters/6f1e6f9a-0000-5000-8000-000000000001", poster); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(srv.URL + "/images/posters/6f1e6f9a-0000-5000-8000-000000000001")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(body, poster) || resp.Header.Get("Content-Type") != "image/jpeg" ||
		resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("GET poster = %d %s, %d bytes", resp.StatusCode, resp.Header, len(body))
	}
	// Conditional requests are answered without the body.
	r, _ := http.NewRequest("GET", srv.URL+"/images/posters/6f1e6f9a-0000-5000-8000-000000000001", nil)
	r.Header.Set("If-Modified-Since", resp.Header.Get("Last-Modified"))
	if resp, err := http.DefaultClient.Do(r); err != nil || resp.StatusCode != http.StatusNotModified {
		t.Errorf("conditional GET = %v, %v; want 304", resp, err)
	} else {
		resp.Body.Close()
	}
}

// TestImagesRefusesTraversalAndNonImages: no spelling of a key reads a file outside the image
// directory, a file that is not an image is not served, and every refusal is a JSON 4xx.
func TestImagesRefusesTraversalAndNonImages(t *testing.T) {
	t.Parallel()
	srv, images, dir := imageServer(t)
	secret := filepath.Join(filepath.Dir(dir), "secret.jpg")
	if err := os.WriteFile(secret, tmdbtest.PosterJPEG(), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "escape.jpg")); err != nil {
		t.Fatal(err)
	}
	if err := images.Put(context.Background(), "page.html", []byte("<html><script>alert(1)</script></html>")); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{
		"/images/../secret.jpg", "/images/..%2fsecret.jpg", "/images/%2e%2e/secret.jpg", "/images/%2e%2e%2fsecret.jpg",
		"/images/posters/..%2f..%2fsecret.jpg", "/images/escape.jpg", "/images/page.html", "/images/", "/images/missing",
		"/images/%00", "/images/a/b/c/d", "/images/.tmp-1",
	} {
		req, _ := http.NewRequest("GET", srv.URL+"/x", nil)
		req.URL.Opaque = path // sent as written, not cleaned by the client
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 && resp.StatusCode != 404 {
			t.Errorf("GET %s = %d, want 400 or 404", path, resp.StatusCode)
		}
		if bytes.Contains(body, []byte{0xff, 0xd8}) || bytes.Contains(body, []byte("<script>")) {
			t.Errorf("GET %s leaked file content", path)
		}
		if resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("GET %s: Content-Type %q, want the JSON error envelope", path, resp.Header.Get("Content-Type"))
		}
	}
}

// TestImagesServedFromS3: with the images in a bucket of a real S3 server, GET /images/{key}
// streams the object with its sniffed type and caching headers, answers conditional and range
// requests, and refuses missing keys, non-images and every spelling of a path outside.
func TestImagesServedFromS3(t *testing.T) {
	t.Parallel()
	env := mediatest.New(t)
	images, gateway := s3test.Open(t)
	api, err := app.NewAPI(env.Store, app.Options{Log: env.Log, BaseURL: "http://diary.test", Secret: testSecret,
		Hasher: fastHasher, Images: images})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.Handler())
	t.Cleanup(srv.Close)
	ctx := context.Background()
	poster := tmdbtest.PosterJPEG()
	if err := images.Put(ctx, "posters/6f1e6f9a-0000-5000-8000-000000000001", poster); err != nil {
		t.Fatal(err)
	}
	if err := images.Put(ctx, "page.html", []byte("<html><script>alert(1)</script></html>")); err != nil {
		t.Fatal(err)
	}
	url := srv.URL + "/images/posters/6f1e6f9a-0000-5000-8000-000000000001"
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(body, poster) || resp.Header.Get("Content-Type") != "image/jpeg" ||
		resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Cache-Control") != "public, max-age=86400" ||
		resp.Header.Get("Last-Modified") == "" || resp.Header.Get("Content-Length") != strconv.Itoa(len(poster)) {
		t.Fatalf("GET poster = %d %s, %d bytes", resp.StatusCode, resp.Header, len(body))
	}
	r, _ := http.NewRequest("GET", url, nil)
	r.Header.Set("If-Modified-Since", resp.Header.Get("Last-Modified"))
	if resp, err := http.DefaultClient.Do(r); err != nil || resp.StatusCode != http.StatusNotModified {
		t.Errorf("conditional GET = %v, %v; want 304", resp, err)
	} else {
		resp.Body.Close()
	}
	r, _ = http.NewRequest("GET", url, nil)
	r.Header.Set("Range", "bytes=600-699")
	if resp, err := http.DefaultClient.Do(r); err != nil {
		t.Fatal(err)
	} else {
		part, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(part, poster[600:700]) {
			t.Errorf("range GET = %d, %d bytes; want 206 with bytes 600-699", resp.StatusCode, len(part))
		}
	}
	for _, path := range []string{"/images/missing", "/images/posters/missing", "/images/page.html", "/images/../page.html",
		"/images/%2e%2e/page.html", "/images/posters/..%2fpage.html", "/images/a/b/c/d", "/images/%00"} {
		req, _ := http.NewRequest("GET", srv.URL+"/x", nil)
		req.URL.Opaque = path
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if (resp.StatusCode != 400 && resp.StatusCode != 404) || bytes.Contains(body, []byte("<script>")) {
			t.Errorf("GET %s = %d %q, want 400 or 404 without the object", path, resp.StatusCode, body)
		}
	}
	// The storage down is not a failure of ours to hide behind a 500: 503, try again later.
	gateway.Stop()
	resp, err = http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		!bytes.Contains(body, []byte("image storage unavailable")) {
		t.Errorf("GET with the S3 server down = %d %s %q, want 503 with Retry-After", resp.StatusCode, resp.Header, body)
	}
}

// TestImagesServesThumbnails: a thumbnail is served with a year's immutable cache; one not made
// yet falls back to the full image (its WebP conversion, else the original) cached for a minute
// only, so the browser picks the thumbnail up once the worker made it; a thumbnail of nothing,
// or in a width the kind does not have, is 404.
func TestImagesServesThumbnails(t *testing.T) {
	t.Parallel()
	srv, images, _ := imageServer(t)
	ctx := context.Background()
	const source = "posters/6f1e6f9a-0000-5000-8000-000000000002"
	get := func(t *testing.T, path string) (*http.Response, []byte) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, body
	}
	put := func(key string, data []byte) {
		if err := images.Put(ctx, key, data); err != nil {
			t.Fatal(err)
		}
	}
	original := tmdbtest.PosterJPEG()
	converted := []byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00/\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00")
	thumb := append([]byte(nil), converted...)
	thumb[len(thumb)-1] = 1
	thumbPath := "/images/" + source + ".w185.webp"

	if resp, _ := get(t, thumbPath); resp.StatusCode != http.StatusNotFound {
		t.Errorf("thumbnail of no image = %d, want 404", resp.StatusCode)
	}
	put(source, original)
	if resp, body := get(t, thumbPath); resp.StatusCode != 200 || !bytes.Equal(body, original) ||
		resp.Header.Get("Cache-Control") != "public, max-age=60" {
		t.Errorf("thumbnail before conversion = %d %q, %d bytes; want the original for a minute",
			resp.StatusCode, resp.Header.Get("Cache-Control"), len(body))
	}
	put(source+".webp", converted)
	if resp, body := get(t, thumbPath); resp.StatusCode != 200 || !bytes.Equal(body, converted) ||
		resp.Header.Get("Content-Type") != "image/webp" || resp.Header.Get("Cache-Control") != "public, max-age=60" {
		t.Errorf("thumbnail after conversion = %d %s, %d bytes; want the conversion for a minute",
			resp.StatusCode, resp.Header, len(body))
	}
	put(source+".w185.webp", thumb)
	if resp, body := get(t, thumbPath); resp.StatusCode != 200 || !bytes.Equal(body, thumb) ||
		resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Errorf("thumbnail = %d %q, %d bytes; want it immutable", resp.StatusCode, resp.Header.Get("Cache-Control"), len(body))
	}
	// Full images keep their day.
	if resp, _ := get(t, "/images/"+source+".webp"); resp.Header.Get("Cache-Control") != "public, max-age=86400" {
		t.Errorf("full image Cache-Control %q", resp.Header.Get("Cache-Control"))
	}
	// No fallback for a width posters are not thumbnailed in.
	if resp, _ := get(t, "/images/"+source+".w186.webp"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown width = %d, want 404", resp.StatusCode)
	}
}
