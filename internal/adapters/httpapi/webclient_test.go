package httpapi_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// clientDir is a built client: index.html, a hashed asset, an unhashed file, and a secret
// beside the directory that a symlink points at.
func clientDir(t *testing.T) string {
	t.Helper()
	top := t.TempDir()
	dir := filepath.Join(top, "dist")
	for name, body := range map[string]string{
		"index.html":                "<!doctype html><html><head><title>app</title></HEAD><body><div id=root></div></body></html>",
		"assets/index-B3x9_kQa.js":  "console.log(1)",
		"favicon.svg":               "<svg/>",
		"../secret.txt":             "do not serve",
		"assets/index-Ab-9xYz1.css": "body{}",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(top, "secret.txt"), filepath.Join(dir, "leak.txt")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestWebClientServed(t *testing.T) {
	t.Parallel()
	b := setup(t, options{webClientDir: clientDir(t)})
	noRedirect := *b.srv.Client()
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for path, want := range map[string]string{"/": "/app/", "/app": "/app/"} {
		resp, err := noRedirect.Get(b.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 3 || resp.Header.Get("Location") != want {
			t.Errorf("GET %s = %d → %q, want a redirect to %s", path, resp.StatusCode, resp.Header.Get("Location"), want)
		}
	}
	for _, c := range []struct {
		path, body, cache string
		status            int
	}{
		{"/app/", "<!doctype html>", "no-cache", 200},
		{"/app/index.html", "<!doctype html>", "no-cache", 200},
		{"/app/diary", "<!doctype html>", "no-cache", 200},              // a client route
		{"/app/users/42/followers", "<!doctype html>", "no-cache", 200}, // a deep one
		{"/app/assets/index-B3x9_kQa.js", "console.log(1)", "public, max-age=31536000, immutable", 200},
		{"/app/favicon.svg", "<svg/>", "no-cache", 200},
		{"/app/assets/index-Ab-9xYz1.css", "body{}", "public, max-age=31536000, immutable", 200},
		{"/app/../secret.txt", "<!doctype html>", "no-cache", 200}, // cleaned to /app/secret.txt: a client route
		{"/app/leak.txt", "<!doctype html>", "no-cache", 200},      // the symlink out is not followed
		{"/app/assets", "<!doctype html>", "no-cache", 200},        // a directory is not a file
		{"/app/assets/index-OLDHASH1.js", `{"error":"not found"}`, "", 404},
	} {
		r := b.do(req{method: "GET", path: c.path})
		if r.status != c.status || !strings.HasPrefix(string(r.body), c.body) || r.header.Get("Cache-Control") != c.cache {
			t.Errorf("GET %s = %d %q (Cache-Control %q), want %d %q (%q)", c.path, r.status, r.body,
				r.header.Get("Cache-Control"), c.status, c.body, c.cache)
		}
		if strings.Contains(string(r.body), "do not serve") {
			t.Errorf("GET %s leaked a file outside the client directory", c.path)
		}
	}
	if ct := b.do(req{method: "GET", path: "/app/diary"}).header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("fallback Content-Type = %q", ct)
	}
	// Revalidation answers 304.
	first := b.do(req{method: "GET", path: "/app/"})
	if lm := first.header.Get("Last-Modified"); lm == "" {
		t.Error("index.html has no Last-Modified")
	} else if r := b.do(req{method: "GET", path: "/app/", header: map[string]string{"If-Modified-Since": lm}}); r.status != 304 {
		t.Errorf("conditional GET = %d, want 304", r.status)
	}
}

func TestHomeWithoutWebClient(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r := b.must(200, req{method: "GET", path: "/"})
	body := string(r.body)
	if ct := r.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type = %q", ct)
	}
	for _, want := range []string{"moviesdiary", "http://diary.test/openapi.json", "http://diary.test/api/v1",
		`rel="alternate" type="application/rss+xml"`, `href="http://diary.test/feed.atom"`} {
		if !strings.Contains(body, want) {
			t.Errorf("home page lacks %q:\n%s", want, body)
		}
	}
	// Without a hosted client, /app/* (bookmarks of the original client) lands on this page.
	r = b.must(200, req{method: "GET", path: "/app/users/x"})
	if !strings.Contains(string(r.body), "openapi.json") {
		t.Errorf("/app/* without a client = %s", r.body)
	}
}
