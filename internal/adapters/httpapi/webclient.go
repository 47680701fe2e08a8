package httpapi

import (
	"errors"
	"io"
	"net/http"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
)

// webClientPrefix is where a hosted web client lives (the original client is built with its
// base path at /app/).
const webClientPrefix = "/app/"

// Cache policies of the hosted client: a content-hashed asset never changes under its name, so
// browsers keep it a year; everything else (index.html above all, which names the current
// assets) is revalidated on every use. Hashed means under assets/ (where Vite, the original
// client's bundler, writes only hashed files) or named like one.
const (
	cacheImmutable  = "public, max-age=31536000, immutable"
	cacheRevalidate = "no-cache"
)

// hashedAsset matches a bundler's content-hashed file name, like index-B3x9_kQa.js or
// logo.3f2a9c1d.svg.
var hashedAsset = regexp.MustCompile(`[.-][A-Za-z0-9_]{8,}\.[a-z0-9]+$`)

// webClient serves Deps.WebClient at /app/. A path naming a file serves it; any other path
// is one of the client's own routes and gets index.html, except under assets/, where a missing
// file is a real 404 (a stale hashed name must not come back as HTML). Without a directory,
// /app/* answers the home page with a 404, so an actor page's redirect to the client lands
// somewhere readable.
func (s *Server) webClient(w http.ResponseWriter, r *http.Request) error {
	if s.WebClient == nil {
		return s.homePage(w, http.StatusNotFound)
	}
	name := strings.TrimPrefix(path.Clean(r.URL.Path), strings.TrimSuffix(webClientPrefix, "/"))
	name = strings.TrimPrefix(name, "/")
	if name != "" && name != "index.html" {
		switch served, err := s.serveClientFile(w, r, name); {
		case err != nil:
			return err
		case served:
			return nil
		case strings.HasPrefix(name, "assets/"):
			writeError(w, http.StatusNotFound, "not found")
			return nil
		}
	}
	s.feedLinks(w, name)
	served, err := s.serveClientFile(w, r, "index.html")
	if err == nil && !served {
		err = errors.New("web client: index.html is missing")
	}
	return err
}

// serveClientFile serves the regular file name of the client directory, if there is one.
func (s *Server) serveClientFile(w http.ResponseWriter, r *http.Request, name string) (bool, error) {
	f, err := s.WebClient.Open(name)
	if err != nil {
		// Missing, or a name the directory refuses (a symlink out of it): not a client file.
		return false, nil
	}
	defer f.Close()
	st, err := f.Stat()
	rs, seekable := f.(io.ReadSeeker)
	if err != nil || !st.Mode().IsRegular() || !seekable {
		return false, nil
	}
	cache := cacheRevalidate
	if name != "index.html" && (strings.HasPrefix(name, "assets/") || hashedAsset.MatchString(name)) {
		cache = cacheImmutable
	}
	w.Header().Set("Cache-Control", cache)
	http.ServeContent(w, r, name, st.ModTime().Truncate(time.Second), rs)
	return true, nil
}

// feedLinks announces the feeds of a client page in Link headers (RFC 8288; the page itself is
// the client's one index.html): the instance's on every page, a user's on their page.
func (s *Server) feedLinks(w http.ResponseWriter, name string) {
	h := w.Header()
	h.Add("Link", `<`+s.BaseURL+`/feed.rss>; rel="alternate"; type="`+rssType+`"; title="Recent reviews"`)
	h.Add("Link", `<`+s.BaseURL+`/feed.atom>; rel="alternate"; type="`+atomType+`"; title="Recent reviews"`)
	if id, ok := strings.CutPrefix(name, "users/"); ok {
		id, _, _ = strings.Cut(id, "/")
		if u, err := uuid.Parse(id); err == nil {
			h.Add("Link", `<`+s.BaseURL+`/users/`+u.String()+`/feed.rss>; rel="alternate"; type="`+rssType+`"; title="This user's reviews"`)
			h.Add("Link", `<`+s.BaseURL+`/users/`+u.String()+`/feed.atom>; rel="alternate"; type="`+atomType+`"; title="This user's reviews"`)
		}
	}
}

// appRedirect sends /app to /app/, where the client's relative asset paths resolve.
func (s *Server) appRedirect(w http.ResponseWriter, r *http.Request) error {
	http.Redirect(w, r, webClientPrefix, http.StatusMovedPermanently)
	return nil
}
