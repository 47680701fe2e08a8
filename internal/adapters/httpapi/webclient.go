package httpapi

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"net/http"
	"path"
	"regexp"
	"slices"
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
// is one of the client's own routes and gets index.html, with the feeds of the page announced in
// it, except under assets/, where a missing file is a real 404 (a stale hashed name must not
// come back as HTML). Without a directory /app/* redirects to the home page, so an actor page's
// redirect to the client lands somewhere readable.
func (s *Server) webClient(w http.ResponseWriter, r *http.Request) error {
	if s.WebClient == nil {
		http.Redirect(w, r, "/", http.StatusFound)
		return nil
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
	return s.serveIndex(w, r, s.pageFeeds(name))
}

// maxIndexBytes bounds the index.html read into memory to announce feeds in it.
const maxIndexBytes = 1 << 20

// serveIndex serves the client's index.html with the page's feeds announced twice: as Link
// headers (RFC 8288) and as <link rel="alternate"> tags before </head>, where feed readers look.
func (s *Server) serveIndex(w http.ResponseWriter, r *http.Request, feeds []feedLink) error {
	f, err := s.WebClient.Open("index.html")
	if err != nil {
		return fmt.Errorf("web client: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("web client: %w", err)
	}
	page, err := io.ReadAll(io.LimitReader(f, maxIndexBytes))
	if err != nil {
		return fmt.Errorf("web client: %w", err)
	}
	var tags strings.Builder
	for _, l := range feeds {
		w.Header().Add("Link", "<"+l.href+`>; rel="alternate"; type="`+l.typ+`"; title="`+l.title+`"`)
		fmt.Fprintf(&tags, `<link rel="alternate" type="%s" title="%s" href="%s">`+"\n",
			l.typ, html.EscapeString(l.title), html.EscapeString(l.href))
	}
	if i := bytes.Index(bytes.ToLower(page), []byte("</head>")); i >= 0 {
		page = slices.Concat(page[:i], []byte(tags.String()), page[i:])
	}
	w.Header().Set("Cache-Control", cacheRevalidate)
	http.ServeContent(w, r, "index.html", st.ModTime().Truncate(time.Second), bytes.NewReader(page))
	return nil
}

// feedLink is a feed a page announces.
type feedLink struct{ href, typ, title string }

// pageFeeds are the feeds of a client page: the instance's on every page, a user's on theirs
// (users/{id}).
func (s *Server) pageFeeds(name string) []feedLink {
	out := []feedLink{
		{s.BaseURL + "/feed.rss", rssType, "Recent reviews"},
		{s.BaseURL + "/feed.atom", atomType, "Recent reviews"},
	}
	if id, ok := strings.CutPrefix(name, "users/"); ok {
		id, _, _ = strings.Cut(id, "/")
		if u, err := uuid.Parse(id); err == nil {
			base := s.BaseURL + "/users/" + u.String()
			out = append(out, feedLink{base + "/feed.rss", rssType, "This user's reviews"},
				feedLink{base + "/feed.atom", atomType, "This user's reviews"})
		}
	}
	return out
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

// appRedirect sends /app to /app/, where the client's relative asset paths resolve.
func (s *Server) appRedirect(w http.ResponseWriter, r *http.Request) error {
	http.Redirect(w, r, webClientPrefix, http.StatusMovedPermanently)
	return nil
}
